/**
 * A `sh` command line read the way `sh` splits it, far enough to name the
 * programs it starts (`setup verify` looks each one up): the simple commands
 * between `&&`, `||`, `;`, `|`, `&` and newlines, their words with quotes
 * removed, and the command lines of the substitutions (`$(…)`, backticks)
 * inside those words, which sh runs before the command. Quote-aware like sh:
 * in single quotes `$(` is text; in double quotes a substitution still runs;
 * `$((…))` is arithmetic, not a command. Nothing is expanded or run.
 * `setup verify` reads programs from it, the gate the folders a failed
 * job's tool ran in (findings/finding-paths.ts).
 */

export interface SimpleCommand {
	/** The words, quotes removed; a substitution stays inside its word, as written. */
	words: string[];
	/** The command lines of the substitutions in its words, in order. */
	substitutions: string[];
	/** Subshells closed (`)`), then opened (`(`), since the command before: a `cd` inside one ends with it. */
	closed: number;
	opened: number;
}

/** The simple commands of a command line, as word lists (see parseCommands). */
export function simpleCommands(line: string): string[][] {
	return parseCommands(line).map((command) => command.words);
}

export function parseCommands(line: string): SimpleCommand[] {
	const commands: SimpleCommand[] = [];
	let words: string[] = [];
	let substitutions: string[] = [];
	let closed = 0;
	let opened = 0;
	let word = "";
	let inWord = false;
	const endWord = () => {
		if (inWord) words.push(word);
		word = "";
		inWord = false;
	};
	const endCommand = () => {
		endWord();
		if (words.length > 0 || substitutions.length > 0) {
			commands.push({ words, substitutions, closed, opened });
			closed = 0;
			opened = 0;
		}
		words = [];
		substitutions = [];
	};
	/** A `$(…)`, `$((…))` or backtick starting at `index`, kept in the word as written; returns where it ends. */
	const substitution = (index: number): number => {
		const found = line[index] === "`" ? backtick(line, index) : dollar(line, index);
		if (found.body !== null) substitutions.push(found.body);
		word += line.slice(index, found.end + 1);
		inWord = true;
		return found.end;
	};
	for (let index = 0; index < line.length; index++) {
		const char = line[index] ?? "";
		if (char === "\\") {
			word += line[index + 1] ?? "";
			inWord = true;
			index++;
		} else if (char === "'") {
			const end = line.indexOf("'", index + 1);
			word += line.slice(index + 1, end === -1 ? undefined : end);
			inWord = true;
			index = end === -1 ? line.length : end;
		} else if (char === '"') {
			inWord = true;
			let end = index + 1;
			while (end < line.length && line[end] !== '"') {
				if (startsSubstitution(line, end)) {
					end = substitution(end) + 1;
					continue;
				}
				const step = line[end] === "\\" ? 2 : 1;
				word += line.slice(end, end + step);
				end += step;
			}
			index = end;
		} else if (startsSubstitution(line, index)) {
			index = substitution(index);
		} else if (char === "#" && !inWord) {
			break;
		} else if (/[\s]/.test(char) && char !== "\n") {
			endWord();
		} else if (char === "\n" || char === ";" || char === "&" || char === "|") {
			endCommand();
			if ((char === "&" || char === "|") && line[index + 1] === char) index++;
		} else if (char === "(" || char === ")") {
			endCommand();
			if (char === "(") opened++;
			// A subshell opened and closed with no command in it changes nothing.
			else if (opened > 0) opened--;
			else closed++;
		} else if (char === "<" && line[index + 1] === "<" && line[index + 2] !== "<") {
			// A here-document: its body is data, and where it ends takes reading lines as sh does. Nothing after it is read.
			endCommand();
			return commands;
		} else if (char === ">" || char === "<") {
			// A redirection's target is not a command word, nor the descriptor it names (`2>&1`).
			if (/^\d+$/.test(word)) {
				word = "";
				inWord = false;
			} else endWord();
			while (line[index + 1] === ">" || line[index + 1] === "&") index++;
			while (/\s/.test(line[index + 1] ?? "")) index++;
			let end = index + 1;
			while (end < line.length && !/[\s;&|]/.test(line[end] ?? "")) end++;
			index = end - 1;
		} else {
			word += char;
			inWord = true;
		}
	}
	endCommand();
	return commands;
}

function startsSubstitution(line: string, index: number): boolean {
	return line[index] === "`" || (line[index] === "$" && line[index + 1] === "(");
}

/** Where a substitution ends (its last character), and its command line (null for arithmetic). */
interface Found {
	end: number;
	body: string | null;
}

/** How deep substitutions are followed; deeper, the rest of the line is one opaque word (no command line to read, no stack to exhaust). */
const MAX_NESTING = 64;

/** `$(…)` or `$((…))` at `start`: to its closing parenthesis, past quotes and nested substitutions. */
function dollar(line: string, start: number, nesting = 0): Found {
	if (nesting > MAX_NESTING) return { end: line.length - 1, body: null };
	if (line[start + 2] === "(") return { end: arithmeticEnd(line, start + 1), body: null };
	let depth = 1;
	for (let index = start + 2; index < line.length; index++) {
		const char = line[index];
		if (char === "\\") index++;
		else if (char === "'") index = closing(line, index, "'");
		else if (char === '"') index = doubleQuoteEnd(line, index, nesting + 1);
		else if (startsSubstitution(line, index)) index = (char === "`" ? backtick(line, index) : dollar(line, index, nesting + 1)).end;
		else if (char === "(") depth++;
		else if (char === ")" && --depth === 0) return { end: index, body: line.slice(start + 2, index) };
	}
	return { end: line.length - 1, body: line.slice(start + 2) };
}

/** `((…))` from its first parenthesis: to the parenthesis that balances it. */
function arithmeticEnd(line: string, open: number): number {
	let depth = 0;
	for (let index = open; index < line.length; index++) {
		if (line[index] === "(") depth++;
		else if (line[index] === ")" && --depth === 0) return index;
	}
	return line.length - 1;
}

/** A backtick substitution: its command line is what is between, with `\``, `\\` and `\$` unescaped. */
function backtick(line: string, start: number): Found {
	let index = start + 1;
	while (index < line.length && line[index] !== "`") index += line[index] === "\\" ? 2 : 1;
	const end = Math.min(index, line.length);
	return { end: Math.min(end, line.length - 1), body: line.slice(start + 1, end).replace(/\\([\\`$])/g, "$1") };
}

/** The closing double quote of the string starting at `start`, past the substitutions inside it. */
function doubleQuoteEnd(line: string, start: number, nesting = 0): number {
	for (let index = start + 1; index < line.length; index++) {
		const char = line[index];
		if (char === "\\") index++;
		else if (char === '"') return index;
		else if (startsSubstitution(line, index)) index = (char === "`" ? backtick(line, index) : dollar(line, index, nesting + 1)).end;
	}
	return line.length;
}

/** The index of the next `quote` after `start`, or the end of the line. */
function closing(line: string, start: number, quote: string): number {
	const end = line.indexOf(quote, start + 1);
	return end === -1 ? line.length : end;
}
