import { randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../platform/files.ts";
import { environValue, type ProcStat, readStat, stillRunning } from "../platform/proc.ts";
import { killMatching } from "../platform/process-scan.ts";
import { stateDir } from "../state/dir.ts";
import { plural } from "../text/plural.ts";
import { type RunLedger, TOKEN_KEY } from "./runner.ts";

/**
 * A discern that is SIGKILLed cannot stop its jobs: they run on, re-parented
 * to init. So while a run's jobs run, the checkout's state dir holds what
 * identifies them: the run's token prefix (every job process inherits
 * `DISCERN_JOB_TOKEN=<prefix>-<n>`) and each job's leader (pid and start
 * time: the leader leads its session and group, which processes that cleared
 * their environment still carry). A normal end removes the file. The next
 * gate in the checkout, holding its lock, finds the file of a run whose
 * discern is gone, kills what still carries its token or sits in one of its
 * jobs' sessions or groups (one scan of /proc: this is the rare path), and
 * says so. A process that both cleared its environment and left its job's
 * session cannot be told apart from the machine's other processes then; while
 * discern lives, its subreaper catches those.
 */
const ProcessRefSchema = v.object({ pid: v.number(), start: v.number() });
const RunningJobs = v.object({
	version: v.literal(1),
	/** The discern process that runs the jobs. */
	owner: ProcessRefSchema,
	token_prefix: v.string(),
	leaders: v.array(ProcessRefSchema),
});
type RunningJobs = v.InferOutput<typeof RunningJobs>;

const FILE = "running-jobs.json";

export interface OpenLedger extends RunLedger {
	/** The run ended (its jobs are gone): remove the record. */
	close: () => Promise<void>;
}

/** Write down the run about to start. Never fails the run: without a record, only the crash case is less covered. */
export async function openLedger(gitDir: string): Promise<OpenLedger> {
	const tokenPrefix = randomUUID();
	const owner = readStat(process.pid);
	// Without /proc there is nothing a later run could look up.
	if (!owner) return { tokenPrefix, jobStarted: () => undefined, close: async () => undefined };
	const record: RunningJobs = { version: 1, owner: { pid: owner.pid, start: owner.start }, token_prefix: tokenPrefix, leaders: [] };
	const dir = stateDir(gitDir);
	const write = () => writeFileAtomic(dir, FILE, `${JSON.stringify(record)}\n`, { mode: 0o600 }).then(() => undefined);
	// Writes go one after another, each with everything known by then.
	let writing = write().catch(() => undefined);
	await writing;
	return {
		tokenPrefix,
		jobStarted: (leader) => {
			const stat = readStat(leader);
			if (!stat) return;
			record.leaders.push({ pid: leader, start: stat.start });
			writing = writing.then(write).catch(() => undefined);
		},
		close: async () => {
			await writing;
			await rm(join(dir, FILE), { force: true }).catch(() => undefined);
		},
	};
}

/**
 * Kill what a dead run in this checkout left running; one sentence per such
 * run for the result, none when there was nothing to do. Call it holding the
 * checkout's lock, before starting jobs.
 */
export async function killLeftovers(gitDir: string): Promise<string[]> {
	const path = join(stateDir(gitDir), FILE);
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch {
		return []; // The usual case: the last run ended normally.
	}
	const parsed = v.safeParse(RunningJobs, safeJson(text));
	if (!parsed.success) {
		await rm(path, { force: true }).catch(() => undefined);
		return [];
	}
	const run = parsed.output;
	// Its discern still runs (it cannot hold the lock we hold, but it is not dead): not ours to clean up.
	if (stillRunning(run.owner) && run.owner.pid !== process.pid) return [];
	const killed = await killMatching(belongsTo(run));
	await rm(path, { force: true }).catch(() => undefined);
	if (killed.length === 0) return [];
	const names = killed.slice(0, 3).map((found) => found.command);
	return [
		`An earlier run in this checkout (discern pid ${run.owner.pid}) was killed before it could stop its jobs: ` +
			`${plural(killed.length, "process", "processes")} it left running ${killed.length === 1 ? "was" : "were"} killed now (${names.join(", ")}${killed.length > 3 ? ", …" : ""}).`,
	];
}

/** A process of that run: it carries the run's token, or sits in the session or group of one of its job leaders. */
function belongsTo(run: RunningJobs): (stat: ProcStat) => boolean {
	const prefix = `${run.token_prefix}-`;
	// A leader's pid now held by another process was reused: its session and group are someone else's.
	const leaders = new Map(
		run.leaders
			.filter((leader) => {
				const now = readStat(leader.pid);
				return now === null || now.start === leader.start;
			})
			.map((leader) => [leader.pid, leader.start]),
	);
	const inLeaders = (id: number, start: number) => {
		const leaderStart = leaders.get(id);
		return leaderStart !== undefined && start >= leaderStart;
	};
	return (stat) => inLeaders(stat.session, stat.start) || inLeaders(stat.group, stat.start) || (environValue(stat.pid, TOKEN_KEY) ?? "").startsWith(prefix);
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}
