import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	CallToolRequestSchema,
	type CallToolResult,
	ErrorCode,
	type JSONRPCMessage,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ListToolsRequestSchema,
	McpError,
	ReadResourceRequestSchema,
	type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import type { CallerContext } from "../contract/context.ts";
import { type AnyResult, fail } from "../contract/envelope.ts";
import { describeValue, issueSentence } from "../contract/issues.ts";
import { isRecord } from "../contract/record.ts";
import { composeText } from "../invoke.ts";
import { DEFAULT_GRACE_MS } from "../jobs/runner.ts";
import { exists } from "../platform/files.ts";
import { clip } from "../text/clip.ts";
import { endSentence } from "../text/sentence.ts";
import { oneLine } from "../text/terminal.ts";
import { VERSION } from "../version.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { invokeVerb } from "./invoke.ts";
import { callProgress, HEARTBEAT_MS } from "./progress.ts";
import { listResources, readResource, resourceTemplates } from "./resources.ts";
import { failure, ScreenedTransport } from "./screen.ts";
import { folderOf, type ToolEntry, toolEntries } from "./tools.ts";

export interface ServerOptions {
	/** The working root: where tools act when a call gives no `path`. */
	root: string;
	env: Readonly<Record<string, string | undefined>>;
	/** Longest silence for a call with a progressToken (default HEARTBEAT_MS; tests shorten it). */
	heartbeatMs?: number;
}

/** A discern MCP server, and the one way to stop what it is doing. */
export interface DiscernServer {
	server: Server;
	/**
	 * Cancel every call in flight (the client went away, the process is being
	 * stopped): each one's jobs are killed, and it returns `interrupted`. Resolves
	 * once they all returned, or after `limitMs` at most. The server stays
	 * connected; closing it is the caller's.
	 */
	cleanup: (reason?: unknown, limitMs?: number) => Promise<void>;
}

/** The tools whose code loads as soon as a client is initialized. */
const WARMED_TOOLS = ["discern_done", "discern_status"] as const;

/** How long `cleanup` waits by default: killing a job tree takes at most the grace period; then the verb must still return. */
const SETTLE_MS = DEFAULT_GRACE_MS + 3000;

/** Every transport a discern server connects to is screened first (see screen.ts). */
class ScreenedServer extends Server {
	override connect(transport: Transport): Promise<void> {
		return super.connect(new ScreenedTransport(transport, screenToolCall));
	}
}

/**
 * The MCP server, answered from the verb registry, with the calls it has in
 * flight. No transport here: stdio and tests attach their own.
 */
export function createServer(options: ServerOptions): DiscernServer {
	const server = new ScreenedServer(
		{ name: "discern", title: "discern", version: VERSION },
		{ capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
	);
	// The calls and reads still running, so that `cleanup` can wait until their job trees are gone.
	const inFlight = new Set<Promise<unknown>>();
	const stopping = new AbortController();
	const track = async <T>(work: Promise<T>): Promise<T> => {
		inFlight.add(work);
		try {
			return await work;
		} finally {
			inFlight.delete(work);
		}
	};
	// Where tools act without a `path`: it follows the agent into the worktree `discern_start` made, and back after `discern_accept`.
	let root = options.root;
	// A call stops when its client cancels it or when the server is cleaned up.
	const context = (cwd: string, signal: AbortSignal): CallerContext => ({
		cwd,
		env: options.env,
		surface: "mcp",
		version: VERSION,
		signal: AbortSignal.any([signal, stopping.signal]),
	});

	// Between the handshake and an agent's first call the server is idle: the code of the calls an agent makes first (the
	// gate, the status) loads then, not on that call. A call arriving meanwhile awaits the same load.
	server.oninitialized = () => {
		setTimeout(() => {
			for (const name of WARMED_TOOLS)
				void toolEntries()
					.get(name)
					?.verb.load()
					.catch(() => undefined);
		}, 0);
	};

	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...toolEntries().values()].map((entry) => entry.listing) }));

	server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
		const entry = toolEntries().get(request.params.name);
		if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${clip(request.params.name)}`);
		const parsed = v.safeParse(entry.arguments, request.params.arguments ?? {});
		if (!parsed.success) {
			const message = parsed.issues.map((issue) => issueSentence(issue, { objectNoun: "object", name: (path) => `\`${path.join(".")}\`` })).join("; ");
			return invalidArguments(entry, message);
		}
		const { path, ...input } = parsed.output as { path?: string } & Record<string, unknown>;
		// A root whose folder is gone (its worktree was landed or dropped from a terminal) falls back to where the server started.
		if (path === undefined && !(await exists(root)) && (await exists(options.root))) root = options.root;
		const ctx = context(path === undefined ? root : await folderOf(path), extra.signal);
		const token = request.params._meta?.progressToken;
		const progress =
			token === undefined ? undefined : callProgress(token, (notification) => extra.sendNotification(notification), options.heartbeatMs ?? HEARTBEAT_MS);
		if (progress) {
			ctx.progress = progress.onEvent;
			// A cancelled request's token is forgotten by its client: progress for it would be an error there.
			extra.signal.addEventListener("abort", progress.stop, { once: true });
		}
		try {
			const { result, text, workingRoot } = await track(invokeVerb(entry.verb, ctx, input, root));
			if (workingRoot) root = workingRoot;
			return { structuredContent: asObject(result), content: [{ type: "text", text }], isError: !result.ok };
		} finally {
			progress?.stop();
		}
	});

	server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
		resources: await track(listResources(context(root, extra.signal))),
	}));
	server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: resourceTemplates() }));
	server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
		const contents = await track(readResource(request.params.uri, context(root, extra.signal)));
		if (!contents) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${clip(request.params.uri)}`);
		return { contents: [contents] };
	});

	const cleanup = async (reason?: unknown, limitMs = SETTLE_MS) => {
		stopping.abort(reason);
		// A timer of its own, cleared when the calls settle first: a server cleaned up must leave nothing pending behind it.
		let timer: ReturnType<typeof setTimeout> | undefined;
		const limit = new Promise<void>((resolve) => {
			timer = setTimeout(resolve, limitMs);
		});
		await Promise.race([Promise.allSettled([...inFlight]), limit]).finally(() => clearTimeout(timer));
		// The SDK hands a handler's answer to the transport some promise turns after the handler returns, and drops it once
		// the server is closed: one turn of the event loop lets every settled call's answer go out before the caller closes.
		await new Promise((resolve) => setImmediate(resolve));
	};
	return { server, cleanup };
}

/** Bad arguments are the tool's own envelope, valid against its outputSchema, like every other failure. */
function invalidArguments(entry: ToolEntry, problem: string): CallToolResult {
	const result = fail(entry.verb.name, "invalid_arguments", `Invalid arguments for ${entry.name}: ${endSentence(problem)}`, [
		`See the inputSchema of ${entry.name} in tools/list.`,
	]);
	// The text carries what every other failure's does: the message, its code and every hint.
	return { structuredContent: asObject(result), content: [{ type: "text", text: composeText(result, "") }], isError: true };
}

/**
 * A tool call the SDK would refuse with a validation dump before the
 * handler runs: `arguments` that is not an object (null, an array, a
 * string) gets the tool's `invalid_arguments` envelope; a name that is not
 * a string, a one-line -32602. Anything else goes on to the handler.
 */
function screenToolCall(id: RequestId, params: Record<string, unknown>): JSONRPCMessage | null {
	if (typeof params.name !== "string") {
		return failure(id, ErrorCode.InvalidParams, `Invalid params for tools/call: \`name\` must be a string, got ${describeValue(params.name, "object")}`);
	}
	const args = params.arguments;
	if (args === undefined || isRecord(args)) return null;
	const entry = toolEntries().get(params.name);
	if (!entry) return failure(id, ErrorCode.InvalidParams, `Unknown tool: ${oneLine(params.name).slice(0, 200)}`);
	const result = invalidArguments(entry, `\`arguments\` must be an object, got ${describeValue(args, "object")}`);
	return { jsonrpc: "2.0", id, result };
}

/** An envelope is always a JSON object; the SDK types structuredContent as an open record. */
function asObject(result: AnyResult): Record<string, unknown> {
	return result as unknown as Record<string, unknown>;
}
