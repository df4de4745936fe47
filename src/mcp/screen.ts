import { type Readable, Transform } from "node:stream";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	CallToolRequestSchema,
	ErrorCode,
	InitializeRequestSchema,
	type JSONRPCMessage,
	JSONRPCMessageSchema,
	JSONRPCRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	type MessageExtraInfo,
	PingRequestSchema,
	ReadResourceRequestSchema,
	type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { describeValue } from "../contract/issues.ts";
import { isRecord } from "../contract/record.ts";
import { oneLine } from "../text/terminal.ts";

/**
 * Every message is screened before the SDK sees it. Left to itself, the SDK
 * drops a line that is not JSON or not a JSON-RPC message without a word
 * (the client waits for an answer that never comes), and answers a request
 * whose params fail its schema with -32603 and a multi-line validation dump.
 * Here each gets the answer the protocol defines: -32700 for a line that is
 * not JSON, -32600 for a message that is not a request, -32602 with one
 * line for params of the wrong shape — and a tool call whose `arguments` is
 * not an object gets the tool's own `invalid_arguments` envelope, like any
 * other bad argument. The server keeps serving after each.
 */
export type Screened = { pass: JSONRPCMessage } | { reply: JSONRPCMessage | null };

/** A tool call whose params are an object: answered here (a reply) or passed on (null). */
export type ToolCallScreen = (id: RequestId, params: Record<string, unknown>) => JSONRPCMessage | null;

/** The requests discern answers, with the schema the SDK will hold each to. */
const REQUESTS = new Map<string, { safeParse: (value: unknown) => { success: boolean; error?: { issues: readonly ZodIssueLike[] } } }>([
	["initialize", InitializeRequestSchema],
	["ping", PingRequestSchema],
	["tools/list", ListToolsRequestSchema],
	["tools/call", CallToolRequestSchema],
	["resources/list", ListResourcesRequestSchema],
	["resources/templates/list", ListResourceTemplatesRequestSchema],
	["resources/read", ReadResourceRequestSchema],
]);

interface ZodIssueLike {
	path: readonly PropertyKey[];
	message: string;
}

/** A value as parsed from one line: is it a JSON-RPC message at all? */
export function screenEnvelope(value: unknown): Screened {
	const parsed = JSONRPCMessageSchema.safeParse(value);
	if (parsed.success) return { pass: parsed.data };
	if (!isRecord(value))
		return { reply: failure(undefined, ErrorCode.InvalidRequest, "Invalid request: a message must be one JSON object (batches are not supported)") };
	const id = requestId(value.id);
	if (typeof value.method === "string" && !("id" in value)) return { reply: null }; // A notification is never answered, not even to refuse it.
	if (typeof value.method === "string" && id !== undefined) {
		if ("params" in value && !isRecord(value.params))
			return { reply: failure(id, ErrorCode.InvalidParams, `Invalid params: \`params\` must be an object, got ${describeValue(value.params, "object")}`) };
		if (isRecord(value.params) && "_meta" in value.params && !isRecord(value.params._meta)) {
			return {
				reply: failure(id, ErrorCode.InvalidParams, `Invalid params: \`params._meta\` must be an object, got ${describeValue(value.params._meta, "object")}`),
			};
		}
	}
	return { reply: failure(id, ErrorCode.InvalidRequest, `Invalid request: ${firstIssue(JSONRPCRequestSchema.safeParse(value).error?.issues ?? [])}`) };
}

/** A JSON-RPC message: do its params fit the request it names? */
export function screenRequest(message: JSONRPCMessage, toolCall: ToolCallScreen): Screened {
	if (!("method" in message) || !("id" in message) || message.id === undefined) return { pass: message };
	const schema = REQUESTS.get(message.method);
	if (!schema) return { pass: message }; // The SDK answers unknown methods itself (-32601).
	if (message.method === "tools/call" && isRecord(message.params)) {
		const reply = toolCall(message.id, message.params);
		if (reply) return { reply };
	}
	const checked = schema.safeParse(message);
	if (checked.success) return { pass: message };
	return { reply: failure(message.id, ErrorCode.InvalidParams, `Invalid params for ${oneLine(message.method)}: ${firstIssue(checked.error?.issues ?? [])}`) };
}

/** A JSON-RPC error response; the id is left out when the message had none worth echoing. */
export function failure(id: RequestId | undefined, code: number, message: string): JSONRPCMessage {
	return { jsonrpc: "2.0", ...(id !== undefined ? { id } : {}), error: { code, message } };
}

function firstIssue(issues: readonly ZodIssueLike[]): string {
	const issue = issues[0];
	if (!issue) return "not a JSON-RPC 2.0 message";
	const path = issue.path.map(String).join(".");
	return `${path ? `\`${path}\`: ` : ""}${oneLine(issue.message)}`;
}

/**
 * The SDK's own transports, behind the screen: the server connects to this.
 * Messages that pass go on unchanged; the others are answered here.
 */
export class ScreenedTransport implements Transport {
	onclose?: (() => void) | undefined;
	onerror?: ((error: Error) => void) | undefined;
	onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
	readonly #inner: Transport;
	readonly #toolCall: ToolCallScreen;

	constructor(inner: Transport, toolCall: ToolCallScreen) {
		this.#inner = inner;
		this.#toolCall = toolCall;
	}

	get sessionId(): string | undefined {
		return this.#inner.sessionId;
	}

	setProtocolVersion(version: string): void {
		this.#inner.setProtocolVersion?.(version);
	}

	start(): Promise<void> {
		this.#inner.onclose = () => this.onclose?.();
		this.#inner.onerror = (error) => this.onerror?.(error);
		this.#inner.onmessage = (message, extra) => {
			// In-process transports hand over whatever was sent: the envelope is checked here too.
			const envelope = screenEnvelope(message);
			const screened = "pass" in envelope ? screenRequest(envelope.pass, this.#toolCall) : envelope;
			if ("pass" in screened) this.onmessage?.(screened.pass, extra);
			else if (screened.reply)
				void this.send(screened.reply).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
		};
		return this.#inner.start();
	}

	send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		return this.#inner.send(message, options);
	}

	close(): Promise<void> {
		return this.#inner.close();
	}
}

/**
 * stdin with its broken lines taken out and answered: the SDK's stdio
 * transport reads what this passes on. A line that is not JSON gets -32700;
 * one that is JSON but not a JSON-RPC message gets -32600/-32602 (a
 * notification gets nothing). Good lines pass byte for byte. A line longer
 * than the transport's own limit is passed through unread, so the
 * transport's limit handling stays in charge of it.
 */
export function screenLines(input: Readable, answer: (reply: JSONRPCMessage) => void, limit = STDIO_DEFAULT_MAX_BUFFER_SIZE): Readable {
	let pending: Buffer = Buffer.alloc(0);
	let passingThrough = false;
	const screen = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			let rest = chunk;
			for (let newline = rest.indexOf(0x0a); newline >= 0; newline = rest.indexOf(0x0a)) {
				const line = Buffer.concat([pending, rest.subarray(0, newline + 1)]);
				pending = Buffer.alloc(0);
				rest = rest.subarray(newline + 1);
				if (passingThrough) {
					passingThrough = false;
					this.push(line);
				} else if (judge(line, answer)) this.push(line);
			}
			if (passingThrough) {
				if (rest.length > 0) this.push(rest);
			} else {
				pending = Buffer.concat([pending, rest]);
				if (pending.length > limit) {
					passingThrough = true;
					this.push(pending);
					pending = Buffer.alloc(0);
				}
			}
			done();
		},
		flush(done) {
			// A last line without its newline is not a message yet; the SDK would not read it either.
			if (pending.length > 0) this.push(pending);
			done();
		},
	});
	return input.pipe(screen);
}

/** True when the line should reach the SDK; otherwise it was answered (or, a broken notification, dropped). */
function judge(line: Buffer, answer: (reply: JSONRPCMessage) => void): boolean {
	const text = line.toString("utf8").replace(/\r?\n$/, "");
	if (text.trim() === "") return false;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		answer(failure(undefined, ErrorCode.ParseError, `Parse error: ${oneLine(error instanceof Error ? error.message : String(error))}`));
		return false;
	}
	const envelope = screenEnvelope(value);
	if ("pass" in envelope) return true;
	if (envelope.reply) answer(envelope.reply);
	return false;
}

function requestId(value: unknown): RequestId | undefined {
	return typeof value === "string" || (typeof value === "number" && Number.isInteger(value)) ? value : undefined;
}
