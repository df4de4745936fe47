/**
 * A small, tolerant XML reader: enough for test reports (elements, attributes,
 * text, CDATA, the predefined and numeric entities), never a throw. Reports
 * come from crashed or killed jobs, so a document that simply stops is read as
 * far as it goes, and every element says whether its end tag was seen.
 * Not a validator: DTDs are skipped, namespaces are kept in names as written,
 * and a stray `<` in text is kept as text.
 */

export interface XmlElement {
	name: string;
	attrs: Record<string, string>;
	children: XmlNode[];
	/** False when the input ended before this element's end tag. */
	closed: boolean;
}

export type XmlNode = XmlElement | string;

export interface XmlRead {
	root: XmlElement;
	/** Index just past the root's end tag, or the input's length when it never closed. */
	end: number;
}

/**
 * Reads the first element at or after `from` (after any XML declaration,
 * comments, processing instructions and doctype) and everything inside it.
 * Null when there is no element there or its start tag is cut off.
 */
export function readXml(text: string, from = 0): XmlRead | null {
	const start = skipProlog(text, from);
	if (start < 0) return null;
	const tag = readStartTag(text, start);
	if (!tag) return null;
	if (tag.selfClosing) return { root: tag.element, end: tag.end };
	const stack: XmlElement[] = [tag.element];
	let at = tag.end;
	while (stack.length > 0) {
		const lt = text.indexOf("<", at);
		addText(stack, text.slice(at, lt < 0 ? text.length : lt));
		if (lt < 0) return { root: tag.element, end: text.length };
		const next = readMarkup(text, lt, stack);
		if (next < 0) return { root: tag.element, end: text.length };
		at = next;
	}
	return { root: tag.element, end: at };
}

/** The element name without a namespace prefix. */
export function localName(element: XmlElement): string {
	const colon = element.name.lastIndexOf(":");
	return colon < 0 ? element.name : element.name.slice(colon + 1);
}

export function childElements(element: XmlElement): XmlElement[] {
	return element.children.filter((child): child is XmlElement => typeof child !== "string");
}

/** All text and CDATA directly inside the element, in order. */
export function textOf(element: XmlElement): string {
	let text = "";
	for (const child of element.children) if (typeof child === "string") text += child;
	return text;
}

const NAMED_ENTITIES = new Map([
	["lt", "<"],
	["gt", ">"],
	["amp", "&"],
	["quot", '"'],
	["apos", "'"],
]);
const ENTITY = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]*));/g;

/** Decodes the five predefined entities and character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
	if (!text.includes("&")) return text;
	return text.replace(ENTITY, (whole, hex: string | undefined, decimal: string | undefined, name: string | undefined) => {
		if (name !== undefined) return NAMED_ENTITIES.get(name) ?? whole;
		const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
		const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
		return valid ? String.fromCodePoint(code) : whole;
	});
}

/** Index of the first element's `<`, or -1 when the prolog is cut off or no element follows. */
function skipProlog(text: string, from: number): number {
	let at = from;
	for (;;) {
		while (at < text.length && isSpaceOrBom(text.charCodeAt(at))) at++;
		if (text.startsWith("<?", at)) at = after(text, "?>", at + 2);
		else if (text.startsWith("<!--", at)) at = after(text, "-->", at + 4);
		else if (text.startsWith("<!", at)) at = afterDoctype(text, at + 2);
		else return text.startsWith("<", at) ? at : -1;
		if (at < 0) return -1;
	}
}

function isSpaceOrBom(code: number): boolean {
	return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0xfeff;
}

/** Index just past the next `marker` at or after `from`, or -1 when the input ends first. */
function after(text: string, marker: string, from: number): number {
	const found = text.indexOf(marker, from);
	return found < 0 ? -1 : found + marker.length;
}

/** A doctype may carry an internal subset in brackets, whose declarations contain `>`. */
function afterDoctype(text: string, from: number): number {
	let depth = 0;
	for (let at = from; at < text.length; at++) {
		const char = text[at];
		if (char === "[") depth++;
		else if (char === "]") depth--;
		else if (char === ">" && depth <= 0) return at + 1;
	}
	return -1;
}

/** Handles the markup starting at `lt`; returns the index after it, or -1 when it is cut off. */
function readMarkup(text: string, lt: number, stack: XmlElement[]): number {
	const top = stack[stack.length - 1];
	if (!top) return -1;
	switch (text.charCodeAt(lt + 1)) {
		case SLASH:
			return readEndTag(text, lt, stack);
		case QUESTION:
			return after(text, "?>", lt + 2);
		case BANG:
			return readDeclaration(text, lt, top);
	}
	if (!isNameStart(text.charCodeAt(lt + 1))) {
		top.children.push("<"); // Not markup: a stray `<` in sloppy output.
		return lt + 1;
	}
	const tag = readStartTag(text, lt);
	if (!tag) return -1;
	top.children.push(tag.element);
	if (!tag.selfClosing) stack.push(tag.element);
	return tag.end;
}

/** `<!--…-->`, `<![CDATA[…]]>` (kept as text) or a stray declaration (skipped). */
function readDeclaration(text: string, lt: number, top: XmlElement): number {
	if (text.startsWith("<!--", lt)) return after(text, "-->", lt + 4);
	if (!text.startsWith("<![CDATA[", lt)) return afterDoctype(text, lt + 2);
	const end = text.indexOf("]]>", lt + 9);
	if (end < 0) return -1;
	top.children.push(text.slice(lt + 9, end));
	return end + 3;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;

function isNameStart(code: number): boolean {
	return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code === 0x3a;
}

/** Name characters after the first: also digits, `.` and `-` (ASCII is enough for test reports). */
function isNameChar(code: number): boolean {
	return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x2d;
}

/**
 * Closes the innermost open element of that name, and with it any elements
 * left open inside it (sloppy writers); an end tag matching nothing is ignored.
 */
function readEndTag(text: string, lt: number, stack: XmlElement[]): number {
	const gt = text.indexOf(">", lt + 2);
	if (gt < 0) return -1;
	const name = text.slice(lt + 2, gt).trim();
	const top = stack[stack.length - 1];
	if (top?.name === name) {
		top.closed = true;
		stack.pop();
		return gt + 1;
	}
	const index = stack.findLastIndex((element) => element.name === name);
	if (index >= 0) {
		for (const element of stack.splice(index)) element.closed = true;
	}
	return gt + 1;
}

const ATTRIBUTE = /([^\s=/>"']+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

interface StartTag {
	element: XmlElement;
	selfClosing: boolean;
	end: number;
}

function readStartTag(text: string, lt: number): StartTag | null {
	if (!isNameStart(text.charCodeAt(lt + 1))) return null;
	let nameEnd = lt + 2;
	while (nameEnd < text.length && isNameChar(text.charCodeAt(nameEnd))) nameEnd++;
	const name = text.slice(lt + 1, nameEnd);
	const gt = tagEnd(text, nameEnd);
	if (gt < 0) return null;
	const selfClosing = text[gt - 1] === "/";
	const attrs = readAttributes(text.slice(nameEnd, selfClosing ? gt - 1 : gt));
	return { element: { name, attrs, children: [], closed: selfClosing }, selfClosing, end: gt + 1 };
}

/** The `>` ending a start tag; quoted attribute values may contain `>` unescaped. */
function tagEnd(text: string, from: number): number {
	for (let at = from; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (code === 0x3e) return at;
		if (code === 0x22 || code === 0x27) {
			at = text.indexOf(code === 0x22 ? '"' : "'", at + 1);
			if (at < 0) return -1;
		}
	}
	return -1;
}

/**
 * Attribute values are decoded but not whitespace-normalized: writers that put
 * literal newlines in a `message` attribute meant them as line breaks.
 */
function readAttributes(source: string): Record<string, string> {
	// No prototype: an attribute named `constructor` must not find Object's.
	const attrs: Record<string, string> = Object.create(null);
	ATTRIBUTE.lastIndex = 0; // Shared and global: exec is markedly cheaper than matchAll on large reports.
	for (let match = ATTRIBUTE.exec(source); match; match = ATTRIBUTE.exec(source)) {
		const [, name, double, single, bare] = match;
		if (name !== undefined) attrs[name] = decodeEntities(double ?? single ?? bare ?? "");
	}
	return attrs;
}

/** Whitespace between elements is dropped: it is layout, and large reports have a lot of it. */
function addText(stack: XmlElement[], raw: string): void {
	const top = stack[stack.length - 1];
	if (!top || !/\S/.test(raw)) return;
	top.children.push(decodeEntities(raw));
}
