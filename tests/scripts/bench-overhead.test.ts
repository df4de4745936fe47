import { describe, expect, test } from "bun:test";
import { type Benchmark, measure, type Probe, WHOLE } from "../../scripts/bench/measure.ts";
import { judge, renderTable } from "../../scripts/bench/report.ts";

/** A probe that reports the given figures in turn, and records when it ran. */
function scripted(label: string, figures: number[], log: string[]): Probe {
	let next = 0;
	return {
		label,
		run: async () => {
			log.push(label);
			return { [WHOLE]: figures[next++ % figures.length] ?? 0 };
		},
	};
}

describe("bench: overhead over a floor measured in the same rounds", () => {
	test("three sides run in every order, and each side's overhead is paired with the floor of its own round", async () => {
		const log: string[] = [];
		// The floor drifts round by round; each side sits a fixed distance above it.
		const floor = [1000, 1010, 1020, 1030, 1040, 1050];
		const candidate = scripted(
			"discern",
			floor.map((f) => f + 12),
			log,
		);
		const baseline = scripted(
			"lefthook",
			floor.map((f) => f + 20),
			log,
		);
		const measured = await measure("gate", candidate, baseline, { runs: 6, warmups: 0 }, scripted("shell", floor, log));
		const rounds = Array.from({ length: 6 }, (_, i) => log.slice(i * 3, i * 3 + 3).join(","));
		expect(new Set(rounds).size).toBe(6);
		const phase = measured.phases[0];
		expect(phase?.overhead?.candidate.median).toBe(12);
		expect(phase?.overhead?.baseline?.median).toBe(20);
		expect(measured.floor).toBe("shell");

		const benchmark: Benchmark = { name: "gate", candidate, baseline, budgets: [{ phase: WHOLE, kind: "overhead", max: 1 }] };
		const [verdict] = judge([{ benchmark, measurement: measured }]);
		expect(verdict).toMatchObject({ kind: "overhead", figure: 0.6, pass: true, overheads: { candidate: 12, baseline: 20 } });
		const table = renderTable({ runs: 6, warmups: 0, load: [0, 0] }, [{ benchmark, measurement: measured }], [verdict!]);
		expect(table).toContain("floor: shell");
		expect(table).toContain("PASS  gate: overhead over the floor 12.0 ms vs the baseline's 20.0 ms, ratio 0.60× (budget ≤ 1.0×)");
	});

	test("more overhead than the baseline fails; a baseline at the floor leaves only the floor itself to pass", async () => {
		const run = async (candidateAbove: number, baselineAbove: number) => {
			const log: string[] = [];
			const measured = await measure(
				"gate",
				scripted("a", [100 + candidateAbove], log),
				scripted("b", [100 + baselineAbove], log),
				{ runs: 3, warmups: 0 },
				scripted("f", [100], log),
			);
			const benchmark: Benchmark = { name: "gate", candidate: scripted("a", [0], log), budgets: [{ phase: WHOLE, kind: "overhead", max: 1 }] };
			return judge([{ benchmark, measurement: measured }])[0]?.pass;
		};
		expect(await run(30, 20)).toBe(false);
		expect(await run(5, 0)).toBe(false);
		expect(await run(0, 0)).toBe(true);
	});

	test("an overhead budget without a floor is a mistake in the benchmark, said at once", async () => {
		const log: string[] = [];
		const measured = await measure("gate", scripted("a", [1], log), scripted("b", [1], log), { runs: 1, warmups: 0 });
		const benchmark: Benchmark = { name: "gate", candidate: scripted("a", [1], log), budgets: [{ phase: WHOLE, kind: "overhead", max: 1 }] };
		expect(() => judge([{ benchmark, measurement: measured }])).toThrow("needs a baseline and a floor");
	});
});
