/**
 * Plain-text layout for help pages: paragraphs wrapped to a width and
 * two-column rows (a label, then its description) with a hanging indent.
 * Lines never end in spaces and never exceed the width: a word longer than
 * a line is cut rather than allowed to overflow a narrow terminal.
 * Everything here measures plain text; color goes on after layout.
 */

/** The width text is laid out for when nothing says otherwise: not a terminal, no COLUMNS. */
export const DEFAULT_COLUMNS = 80;

/**
 * `text` wrapped to `width` columns, each line prefixed by `indent` (which
 * counts toward the width); lines after a paragraph's first take
 * `restIndent` instead (a hanging indent). Newlines in `text` start new
 * paragraphs.
 */
export function wrap(text: string, width: number, indent = "", restIndent = indent): string[] {
	const lines: string[] = [];
	for (const paragraph of text.split("\n")) {
		const before = lines.length;
		let prefix = indent;
		let line = "";
		const room = () => Math.max(1, width - prefix.length);
		const flush = () => {
			lines.push(prefix + line);
			prefix = restIndent;
			line = "";
		};
		for (const word of words(paragraph)) {
			let rest = word;
			while (rest !== "") {
				const free = line === "" ? room() : room() - line.length - 1;
				if (rest.length <= free) {
					line = line === "" ? rest : `${line} ${rest}`;
					rest = "";
				} else if (line !== "") flush();
				else {
					// A word longer than a whole line is cut: overflowing a narrow terminal is worse.
					line = rest.slice(0, free);
					rest = rest.slice(free);
					flush();
				}
			}
		}
		if (line !== "") lines.push(prefix + line);
		// An empty paragraph is a blank line, kept as the text had it.
		else if (lines.length === before) lines.push("");
	}
	return lines;
}

/**
 * The words of a paragraph; a code span in backticks (`` `discern docs mcp` ``)
 * is one word, so a command is never split across lines unless it alone is
 * longer than a line.
 */
function words(paragraph: string): string[] {
	return paragraph.match(/(?:`[^`]*`|[^\s`])+|`/g) ?? [];
}

export interface Row {
	label: string;
	description: string;
}

export interface RowLayout {
	width: number;
	/** Spaces before each label. */
	indent: number;
	/** Width of the label column; labels are padded to it. At least the longest label is best. */
	labelWidth: number;
	/** Styles a label (applied after measuring: color must not count toward the width). */
	paintLabel?: (label: string) => string;
}

/** The narrowest description column worth sitting beside its label; narrower, it goes below. */
const MIN_DESCRIPTION = 20;
const GAP = 2;

/**
 * Rows as `  label   description`, the description wrapped under itself.
 * On a terminal too narrow for both columns, each description goes on the
 * lines below its label, indented a little further.
 */
export function rows(items: readonly Row[], layout: RowLayout): string[] {
	const paint = layout.paintLabel ?? ((text: string) => text);
	const pad = " ".repeat(layout.indent);
	const descriptionAt = layout.indent + layout.labelWidth + GAP;
	const sideBySide = layout.width - descriptionAt >= MIN_DESCRIPTION;
	const below = " ".repeat(Math.min(layout.indent + 4, Math.max(0, layout.width - 1)));
	const lines: string[] = [];
	for (const item of items) {
		if (sideBySide && item.label.length <= layout.labelWidth && item.description !== "") {
			const [first = "", ...rest] = wrap(item.description, layout.width, " ".repeat(descriptionAt));
			lines.push(`${pad}${paint(item.label)}${" ".repeat(layout.labelWidth - item.label.length + GAP)}${first.slice(descriptionAt)}`);
			lines.push(...rest);
			continue;
		}
		// Stacked, nothing lines up beside the label: its alignment spaces ("    --json") would only blur it with the description.
		const text = item.label.trim();
		const label = pad.length + text.length <= layout.width ? [`${pad}${paint(text)}`] : wrap(text, layout.width, pad).map((line) => paint(line));
		lines.push(...label);
		if (item.description !== "") lines.push(...wrap(item.description, layout.width, below));
	}
	return lines;
}
