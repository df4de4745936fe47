import { describe, expect, test } from "bun:test";
import { firstLine, firstLineOfError, firstNonBlankLine } from "../../src/text/first-line.ts";

describe("the first line of a text", () => {
	test("firstNonBlankLine skips blank lines and trims, keeping a closing period", () => {
		expect(firstNonBlankLine("\n  \r\n\t fatal: bad object.  \r\nmore")).toBe("fatal: bad object.");
		expect(firstNonBlankLine("one")).toBe("one");
		expect(firstNonBlankLine(" \n\t\n")).toBeUndefined();
		expect(firstNonBlankLine("")).toBeUndefined();
	});

	test("firstLine quotes git's complaint without its closing period, and is empty when git said nothing", () => {
		expect(firstLine("\nfatal: ambiguous argument 'x': unknown revision or path not in the working tree.\nUse '--' to separate paths")).toBe(
			"fatal: ambiguous argument 'x': unknown revision or path not in the working tree",
		);
		expect(firstLine("error: could not lock config file...\n")).toBe("error: could not lock config file");
		expect(firstLine("  \n")).toBe("");
	});

	test("firstLineOfError takes a parser's first line, not the source and caret after it", () => {
		expect(firstLineOfError(new Error('Error parsing TOML (1, 5):\nv = {\n    ^\nExpected "}"'))).toBe("Error parsing TOML (1, 5):");
		expect(firstLineOfError("thrown text\nsecond")).toBe("thrown text");
	});
});
