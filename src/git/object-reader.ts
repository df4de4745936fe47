import { type GitOptions, gitPiped } from "./run.ts";

/**
 * One `git cat-file --batch` kept open for every object a judgement reads.
 * A gate reads objects in rounds that depend on each other (the commit,
 * then its tree, then the trees below; the trunk's commit, its root, its
 * discern.toml; a chain of parents), and each round as its own git process
 * costs a process start: on two shared cores, milliseconds each. Here a
 * round is a write and a read on pipes that are already open.
 *
 * This module only speaks the protocol; what an object must hash to is
 * object-check.ts's to verify.
 */
export interface ObjectReader {
	/** Each object as git gives it, in order; null for one git could not give (missing, or git stopped). */
	fetch(ids: readonly string[]): Promise<(RawObject | null)[]>;
	/** Ends git (stdin closed) and waits for it; reads after this answer null. */
	close(): Promise<void>;
}

export interface RawObject {
	id: string;
	type: string;
	content: Uint8Array;
}

/**
 * A reader for the repository git finds from `cwd` (or the one `options.env`
 * names). git starts at once, so its start overlaps whatever the caller
 * reads meanwhile.
 */
export function openObjectReader(cwd: string, options: Omit<GitOptions, "input"> = {}): ObjectReader {
	const child = gitPiped(["cat-file", "--batch"], cwd, options);
	if (!child) return { fetch: async (ids) => ids.map(() => null), close: async () => undefined };
	// Answers come in the order asked: each waiting request takes the next one.
	const waiting: ((object: RawObject | null) => void)[] = [];
	let ended = false;
	const endAll = () => {
		ended = true;
		for (const settle of waiting.splice(0)) settle(null);
	};
	const parser = new BatchParser((object) => waiting.shift()?.(object));
	const reading = (async () => {
		try {
			for await (const chunk of child.stdout) {
				if (parser.push(chunk)) continue;
				// Out of step with git's format: stopped, so it never blocks on a pipe nobody reads.
				child.kill();
				break;
			}
		} catch {
			// A broken pipe is git gone: what waits is answered null below.
		}
		endAll();
	})();
	// git's complaints are not answers; read so a full pipe never stalls it.
	const drained = new Response(child.stderr).arrayBuffer().catch(() => undefined);
	return {
		fetch(ids) {
			if (ids.length === 0) return Promise.resolve([]);
			if (ended) return Promise.resolve(ids.map(() => null));
			const answers = ids.map((_) => new Promise<RawObject | null>((settle) => waiting.push(settle)));
			try {
				child.stdin.write(`${ids.join("\n")}\n`);
				child.stdin.flush();
			} catch {
				endAll();
			}
			return Promise.all(answers);
		},
		async close() {
			try {
				child.stdin.end();
			} catch {
				// Already closed: git ends on its own.
			}
			await Promise.all([child.exited, reading, drained]);
			endAll();
		},
	};
}

/** `use` with the caller's reader, or with one opened for this call alone (closed after). */
export async function withObjectReader<T>(cwd: string, given: ObjectReader | undefined, use: (reader: ObjectReader) => Promise<T>): Promise<T> {
	if (given) return use(given);
	const reader = openObjectReader(cwd);
	try {
		return await use(reader);
	} finally {
		await reader.close();
	}
}

/**
 * `cat-file --batch` output as it arrives: `<id> <type> <size>\n<content>\n`
 * per object, `<name> missing\n` for one git does not have. Content is
 * copied once into a buffer of its size, however many chunks it spans.
 */
class BatchParser {
	private header: number[] = [];
	private body: { id: string; type: string; content: Uint8Array; filled: number } | null = null;
	/** The newline after a body, still to skip. */
	private trailing = false;

	constructor(private readonly answer: (object: RawObject | null) => void) {}

	/** False when the stream is not git's format: nothing after it can be trusted to line up. */
	push(chunk: Uint8Array): boolean {
		let at = 0;
		while (at < chunk.length) {
			if (this.trailing) {
				if (chunk[at] !== 10) return false;
				this.trailing = false;
				at++;
				continue;
			}
			if (this.body) {
				const body = this.body;
				const take = Math.min(body.content.length - body.filled, chunk.length - at);
				body.content.set(chunk.subarray(at, at + take), body.filled);
				body.filled += take;
				at += take;
				if (body.filled === body.content.length) {
					this.body = null;
					this.trailing = true;
					this.answer({ id: body.id, type: body.type, content: body.content });
				}
				continue;
			}
			const newline = chunk.indexOf(10, at);
			const end = newline < 0 ? chunk.length : newline;
			for (let i = at; i < end; i++) this.header.push(chunk[i] as number);
			at = end;
			if (newline < 0) continue;
			at++;
			const [id = "", type = "", size = ""] = new TextDecoder().decode(Uint8Array.from(this.header)).split(" ");
			this.header = [];
			if (type === "missing" || type === "ambiguous") {
				this.answer(null);
				continue;
			}
			const length = Number(size);
			if (!/^[0-9a-f]+$/.test(id) || type === "" || !Number.isSafeInteger(length) || length < 0) return false;
			this.body = { id, type, content: new Uint8Array(length), filled: 0 };
			if (length === 0) {
				this.body = null;
				this.trailing = true;
				this.answer({ id, type, content: new Uint8Array() });
			}
		}
		return true;
	}
}
