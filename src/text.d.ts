// Markdown pages are imported as text (`with { type: "text" }`) to bundle the manual.
declare module "*.md" {
	const content: string;
	export default content;
}
