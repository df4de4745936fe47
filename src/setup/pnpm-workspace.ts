/** The `packages:` list of a pnpm-workspace.yaml: a small reader for the one shape pnpm documents. */
export function pnpmWorkspacePackages(text: string | null): string[] {
	if (text === null) return [];
	const out: string[] = [];
	let inPackages = false;
	for (const line of text.split(/\r?\n/)) {
		if (/^packages\s*:/.test(line)) {
			inPackages = true;
			const inline = /^packages\s*:\s*\[(.*)\]/.exec(line);
			if (inline?.[1])
				out.push(
					...inline[1]
						.split(",")
						.map(unquote)
						.filter((item) => item !== ""),
				);
			continue;
		}
		if (!inPackages) continue;
		if (/^\S/.test(line)) break;
		const item = /^\s*-\s*(.+?)\s*(#.*)?$/.exec(line);
		if (item?.[1]) out.push(unquote(item[1]));
	}
	return out;
}

function unquote(value: string): string {
	return value.trim().replace(/^(["'])(.*)\1$/, "$2");
}
