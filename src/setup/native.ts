import { isRecord } from "../contract/record.ts";
import { type Folder, type FolderReader, inFolder } from "./folder.ts";
import { goNeeds, rustNeeds } from "./installs.ts";
import { rustOutputs } from "./outputs.ts";
import { expandMembers, type StackFinding, type StackJob, stringsOf, tomlOf, type WorkspaceMember } from "./shared.ts";

// ---------------------------------------------------------------------- rust

export async function detectRust(folder: Folder, reader: FolderReader): Promise<StackFinding | null> {
	if (!folder.has("Cargo.toml")) return null;
	const evidence = inFolder(folder.rel, "Cargo.toml");
	const manifest = tomlOf(folder.text("Cargo.toml")) ?? {};
	const workspace = isRecord(manifest.workspace) ? manifest.workspace : null;
	const reason = workspace ? `${evidence} declares a Cargo workspace` : `${evidence} marks a Rust crate`;
	// In a workspace every member is checked, not only the root package.
	const all = workspace ? { fmt: " --all", pkg: " --workspace" } : { fmt: "", pkg: "" };
	const members: WorkspaceMember[] = [];
	if (workspace) {
		const dirs = await expandMembers(reader, folder.rel, stringsOf(workspace.members), "Cargo.toml");
		const excluded = new Set(stringsOf(workspace.exclude).map((path) => inFolder(folder.rel, path.replace(/^\.\//, "").replace(/\/+$/, ""))));
		for (const dir of dirs) {
			if (excluded.has(dir)) continue;
			const crate = tomlOf((await reader.read(dir))?.text("Cargo.toml") ?? null);
			members.push({ dir, name: packageName(crate) ?? dir.split("/").pop() ?? dir, reason: `${evidence} lists it as a workspace member` });
		}
	}
	const jobs: StackJob[] = [
		{ name: "format", run: `cargo fmt${all.fmt}`, reason: `${reason}; rustfmt is its formatter (the fix stage writes)` },
		{ name: "lint", run: `cargo clippy${all.pkg} -- -D warnings`, reason: `${reason}; clippy is its linter` },
		{ name: "test", run: `cargo test${all.pkg}`, reason },
	];
	return {
		kind: "rust",
		evidence,
		jobs,
		outputs: rustOutputs(jobs),
		needs: rustNeeds(folder),
		projectName: packageName(manifest),
		members,
	};
}

function packageName(manifest: Record<string, unknown> | null): string | null {
	const pkg = isRecord(manifest?.package) ? manifest.package : null;
	return typeof pkg?.name === "string" && pkg.name.trim() !== "" ? pkg.name : null;
}

// ------------------------------------------------------------------------ go

const GOLANGCI = [".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"];

export async function detectGo(folder: Folder, reader: FolderReader): Promise<StackFinding | null> {
	const isWork = folder.has("go.work");
	if (!isWork && !folder.has("go.mod")) return null;
	const evidence = inFolder(folder.rel, isWork ? "go.work" : "go.mod");
	const members: WorkspaceMember[] = [];
	let packages = "./...";
	let reason = `${evidence} marks a Go module`;
	if (isWork) {
		reason = `${evidence} declares a Go workspace`;
		const uses = goWorkUses(folder.text("go.work"));
		const dirs = await expandMembers(reader, folder.rel, uses, "go.mod");
		// `./...` stops at a module boundary, so a workspace names every module it uses.
		const patterns = uses.some((use) => use.replace(/^\.\/?/, "").replace(/\/+$/, "") === "") && folder.has("go.mod") ? ["./..."] : [];
		for (const dir of dirs) {
			const rel = folder.rel === "" ? dir : dir.slice(folder.rel.length + 1);
			patterns.push(`./${rel}/...`);
			members.push({
				dir,
				name: moduleName(await reader.read(dir).then((read) => read?.text("go.mod") ?? null)) ?? dir.split("/").pop() ?? dir,
				reason: `${evidence} uses it`,
			});
		}
		if (patterns.length > 0) packages = patterns.join(" ");
	}
	const golangci = GOLANGCI.find((name) => folder.has(name));
	return {
		kind: "go",
		evidence,
		jobs: [
			{ name: "format", run: "gofmt -w .", reason: `${reason}; gofmt formats it (the fix stage writes)` },
			golangci
				? { name: "lint", run: "golangci-lint run", reason: `${inFolder(folder.rel, golangci)} configures golangci-lint (it runs go vet too)` }
				: { name: "lint", run: `go vet ${packages}`, reason },
			{ name: "test", run: `go test ${packages}`, reason },
		],
		// go keeps its build and module caches outside the project (GOCACHE, GOMODCACHE).
		outputs: [],
		needs: goNeeds(folder),
		projectName: moduleName(folder.text("go.mod")),
		members,
	};
}

/** The folders a go.work `use`s: `use ./a` and `use ( ./a ./b )`. */
export function goWorkUses(text: string | null): string[] {
	if (text === null) return [];
	const out: string[] = [];
	const body = text.replace(/\/\/.*$/gm, "");
	for (const match of body.matchAll(/^\s*use\s*\(([^)]*)\)/gm)) out.push(...(match[1] ?? "").split(/\s+/).filter((item) => item !== ""));
	for (const match of body.matchAll(/^\s*use\s+([^\s(]+)\s*$/gm)) if (match[1]) out.push(match[1]);
	return out.map((item) => item.replace(/^"(.*)"$/, "$1"));
}

/** The last element of the module path, without a major-version suffix: `github.com/acme/shop/v2` → `shop`. */
function moduleName(goMod: string | null): string | null {
	const path = goMod === null ? null : /^\s*module\s+"?([^\s"]+)"?/m.exec(goMod)?.[1];
	if (!path) return null;
	const parts = path.split("/").filter((part) => !/^v\d+$/.test(part));
	return parts.at(-1) ?? null;
}
