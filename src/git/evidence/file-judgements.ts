import type { Entry } from "./expected-content.ts";
import { fitsMode, type Horizon, isSettled, type KnownFile } from "./known-content.ts";

/**
 * What the evidence knows of each tracked file from one look to the next,
 * and from one run to the next (known-content.ts): the stat its bytes were
 * judged at, when they were read, and whether they differ from the commit.
 * A look asks which files to read (`suspects`), records what the reading
 * found (`record`), and at the end the settled facts are handed back to be
 * kept (`learned`).
 */
export class FileJudgements {
	/** The stat each file was last judged at. */
	private judgedAt = new Map<string, string>();
	/** Those then found to differ from the commit. */
	readonly differing = new Set<string>();
	/** When each file's bytes were last read (nanoseconds, when its look began); a file known from an earlier run is settled already. */
	private readonly readFrom = new Map<string, bigint>();
	private readonly kept: ReadonlyMap<string, KnownFile>;
	/** Whether any look read a file: until one does, the facts are the earlier run's, unchanged. */
	private readAny = false;

	/**
	 * `context`: the conversions the facts hold under (the commit's attributes
	 * and the hash); `horizon`: how long bytes can change with a stat unchanged
	 * here (null: a stat never vouches for bytes); `earlier`: an earlier run's
	 * facts, used only under the same context, and only where a stat can vouch.
	 */
	constructor(
		private readonly files: readonly Entry[],
		context: string,
		private readonly horizon: Horizon | null,
		earlier: { context: string; files: ReadonlyMap<string, KnownFile> } | null,
	) {
		this.kept = earlier && earlier.context === context && horizon !== null ? earlier.files : new Map();
		for (const entry of files) {
			const fact = this.kept.get(entry.path);
			// Only raw content of a regular file is ever a fact: anything converted, a pointer or a link is read at every look.
			if (!fact || entry.check !== "raw" || !fitsMode(fact.stat, entry.mode)) continue;
			this.judgedAt.set(entry.path, fact.stat);
			if (fact.blob !== entry.blob) this.differing.add(entry.path);
		}
	}

	/**
	 * The files this look must read: their stat changed, or their bytes were
	 * read before the file had settled (a write through a memory map changes
	 * bytes unstamped for a while), or a tracked folder on their way was
	 * replaced (`replaced`: a link there reads the files elsewhere, each with
	 * its own unchanged stat).
	 */
	suspects(stats: ReadonlyMap<string, string>, replaced: readonly string[]): Entry[] {
		const underReplaced = (path: string) => replaced.some((folder) => path.startsWith(`${folder}/`));
		const unsettled = (path: string) => {
			const from = this.readFrom.get(path);
			const stat = this.judgedAt.get(path);
			return from !== undefined && stat !== undefined && !isSettled(stat, from, this.horizon);
		};
		return this.files.filter(
			(entry) => this.judgedAt.get(entry.path) !== stats.get(entry.path) || unsettled(entry.path) || (replaced.length > 0 && underReplaced(entry.path)),
		);
	}

	/** What a look begun at `lookFrom` found: `found` names the suspects that differ; every file now stands at `stats`. */
	record(suspects: readonly Entry[], found: ReadonlyMap<string, unknown>, stats: Map<string, string>, lookFrom: bigint): void {
		if (suspects.length > 0) this.readAny = true;
		for (const entry of suspects) {
			if (found.has(entry.path)) this.differing.add(entry.path);
			else this.differing.delete(entry.path);
			this.readFrom.set(entry.path, lookFrom);
		}
		this.judgedAt = stats;
	}

	/**
	 * The settled facts the looks established, to keep for the next run; null
	 * when they hold nothing the earlier facts did not (`anew`: they are to be
	 * kept all the same, for what is kept with them changed).
	 */
	learned(anew: boolean): Map<string, KnownFile> | null {
		// Nothing read: every file stood at its earlier fact's stat (any other was a suspect), so the facts are those.
		if (!anew && !this.readAny) return null;
		const facts = new Map<string, KnownFile>();
		let fresh = false;
		for (const entry of this.files) {
			const stat = this.judgedAt.get(entry.path);
			if (stat === undefined || this.differing.has(entry.path) || entry.check !== "raw" || !fitsMode(stat, entry.mode)) continue;
			const from = this.readFrom.get(entry.path);
			// Read by this run: kept once settled. Not read: the earlier run's fact, still its stat.
			if (from !== undefined && !isSettled(stat, from, this.horizon)) continue;
			facts.set(entry.path, { stat, blob: entry.blob });
			if (from !== undefined) fresh = true;
		}
		return anew || fresh || facts.size !== this.kept.size ? facts : null;
	}
}
