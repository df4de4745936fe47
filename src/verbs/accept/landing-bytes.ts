import { filesNotAsWritten, type LandingBlobs, verifiedLandingBlobs, type WrittenBlob } from "../../git/landing-objects.ts";
import { openObjectReader } from "../../git/object-reader.ts";
import { plural } from "../../text/plural.ts";
import { quoteName } from "../../text/terminal.ts";

/**
 * The bytes a landing writes, checked on both sides of the trunk's move:
 * before, every blob of a path the trunk and the proven commit hold
 * differently must hash to its id in the object store (else nothing
 * lands: the checkout on the trunk, and every checkout made from the
 * trunk later, would get other files than were proven); after, the files
 * written into the checkout on the trunk must hold those blobs.
 */
export async function landingBlobs(root: string, from: string, to: string, env: Readonly<Record<string, string | undefined>>): Promise<LandingBlobs> {
	const reader = openObjectReader(root, { env });
	try {
		return await verifiedLandingBlobs(reader, from, to);
	} finally {
		await reader.close();
	}
}

/**
 * Why the files the landing wrote into `checkout` are not what it landed,
 * or null. The trunk moved already, and the store gave git these bytes:
 * they cannot be put back from it.
 */
export async function writtenFilesProblem(checkout: string, files: readonly WrittenBlob[]): Promise<string | null> {
	if (files.length === 0) return null;
	const differ = await filesNotAsWritten(checkout, files);
	if (differ === null)
		return `git could not hash the files the landing wrote into the checkout at ${quoteName(checkout)}, so they were not checked against what landed`;
	if (differ.length === 0) return null;
	const names = differ.slice(0, 10).map(quoteName).join(", ");
	return `${plural(differ.length, "file")} the landing wrote into the checkout at ${quoteName(checkout)} ${differ.length === 1 ? "does" : "do"} not hold what the landed commit records (${names}${differ.length > 10 ? ` and ${differ.length - 10} more` : ""}): the object store gave git other bytes than the ids name, so ${differ.length === 1 ? "it" : "they"} cannot be put back from it; run \`git fsck\` there (it names the object files that do not hash to their ids), and restore the files from the worktree, which was kept`;
}
