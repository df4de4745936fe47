import { randomUUID } from "node:crypto";
import * as v from "valibot";
import { isRecord } from "../contract/record.ts";
import { allPids, environValue, type ProcStat, readStat, stillRunning } from "../platform/proc.ts";
import { killMatching } from "../platform/process-scan.ts";
import { sealer, sealHolds } from "../proof/seal.ts";
import { readStateFile, removeStateFile, writeStateFile } from "../state/dir.ts";
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
 *
 * The file is in the git dir, which an agent can write, and the next gate
 * may run as the person, outside the agent's sandbox: a record written by
 * hand must never make discern kill a process that is not a job of its own.
 * So the record is sealed as a Proof is (proof/seal.ts: a record without a
 * valid seal kills nothing), and a leader's session or group is killed only
 * when a process there carries the run's token, the leader itself or one of
 * its job's processes (no process of a person's carries DISCERN_JOB_TOKEN).
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
	// No seal, no record: an unsealed one would kill nothing (see above).
	const seal = await sealer(gitDir).catch(() => null);
	if (!seal) return { tokenPrefix, jobStarted: () => undefined, close: async () => undefined };
	const write = () => writeRunningJobs(gitDir, record, seal);
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
			try {
				removeStateFile(gitDir, FILE);
			} catch {
				// Housekeeping: the next gate drops it.
			}
		},
	};
}

/** What the seal covers: marked as this record's, so that no other sealed record (a Proof, a journal) reads as one. */
function sealed(content: string): string {
	return `running-jobs\n${content}`;
}

/** Write the record, sealed (`seal`: see proof/seal.ts `sealer`). */
export async function writeRunningJobs(gitDir: string, record: RunningJobs, seal: (content: string) => string): Promise<void> {
	const content = JSON.stringify(record);
	await writeStateFile(gitDir, FILE, `${JSON.stringify({ ...record, seal: seal(sealed(content)) })}\n`, { mode: 0o600 });
}

/** The record, only when its seal holds; null for none, a damaged one, or one written by hand. */
async function readRunningJobs(gitDir: string, text: string): Promise<RunningJobs | null> {
	const raw = safeJson(text);
	if (!isRecord(raw)) return null;
	const { seal, ...record } = raw;
	if (!(await sealHolds(gitDir, sealed(JSON.stringify(record)), seal))) return null;
	const parsed = v.safeParse(RunningJobs, record);
	return parsed.success ? parsed.output : null;
}

/**
 * Kill what a dead run in this checkout left running; one sentence per such
 * run for the result, none when there was nothing to do. Call it holding the
 * checkout's lock, before starting jobs.
 */
export async function killLeftovers(gitDir: string): Promise<string[]> {
	// Read through no link (state/dir.ts): a record elsewhere is none.
	const text = readStateFile(gitDir, FILE);
	if (text === null) return []; // The usual case: the last run ended normally.
	const drop = () => {
		try {
			removeStateFile(gitDir, FILE);
		} catch {
			// Left for the next gate.
		}
	};
	const run = await readRunningJobs(gitDir, text);
	if (!run) {
		drop();
		return [];
	}
	// Its discern still runs (it cannot hold the lock we hold, but it is not dead): not ours to clean up.
	if (stillRunning(run.owner) && run.owner.pid !== process.pid) return [];
	const killed = await killMatching(belongsTo(run));
	drop();
	if (killed.length === 0) return [];
	const names = killed.slice(0, 3).map((found) => found.command);
	return [
		`An earlier run in this checkout (discern pid ${run.owner.pid}) was killed before it could stop its jobs: ` +
			`${plural(killed.length, "process", "processes")} it left running ${killed.length === 1 ? "was" : "were"} killed now (${names.join(", ")}${killed.length > 3 ? ", …" : ""}).`,
	];
}

/** A process of that run: it carries the run's token, or sits in the session or group of one of its job leaders that a token vouches for. */
function belongsTo(run: RunningJobs): (stat: ProcStat) => boolean {
	const prefix = `${run.token_prefix}-`;
	const carries = (pid: number) => (environValue(pid, TOKEN_KEY) ?? "").startsWith(prefix);
	// A leader's pid now held by another process was reused: its session and group are someone else's.
	const recorded = new Map(
		run.leaders
			.filter((leader) => {
				const now = readStat(leader.pid);
				return now === null || now.start === leader.start;
			})
			.map((leader) => [leader.pid, leader.start]),
	);
	const inRecorded = (id: number, start: number) => {
		const leaderStart = recorded.get(id);
		return leaderStart !== undefined && start >= leaderStart;
	};
	// A session or group is the job's only when some process in it carries the token (the leader, or a process its command
	// started): a record naming a person's own session (`setsid sleep`) names one where none does.
	const vouched = new Set<number>();
	for (const pid of recorded.size === 0 ? [] : (allPids() ?? [])) {
		const stat = readStat(pid);
		if (!stat || stat.zombie || !(inRecorded(stat.session, stat.start) || inRecorded(stat.group, stat.start)) || !carries(pid)) continue;
		if (inRecorded(stat.session, stat.start)) vouched.add(stat.session);
		if (inRecorded(stat.group, stat.start)) vouched.add(stat.group);
	}
	const inLeaders = (id: number, start: number) => vouched.has(id) && inRecorded(id, start);
	return (stat) => inLeaders(stat.session, stat.start) || inLeaders(stat.group, stat.start) || carries(stat.pid);
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}
