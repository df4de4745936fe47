/** The `code` of a failed system call (`ENOENT`, `EPIPE` …), read from anything thrown; undefined when it carries none. */
export function errorCode(error: unknown): string | undefined {
	return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
}
