// The TypeScript SDK v2 client against mcpcast, pinned to one era.
//   node sdk_client.mjs URL 2026-07-28|legacy|auto
// Prints one JSON line with what it saw; the pytest test (test_sdk_current.py) checks it.
// ESM ignores NODE_PATH, so the package is resolved from the directory NODE_PATH names
// (.tools/npm/node_modules, installed from scripts/npm-package.json).
import { createRequire } from 'node:module';
import { join } from 'node:path';

const modules = (process.env.NODE_PATH ?? '').split(':')[0] || process.cwd();
const require = createRequire(join(modules, 'resolve-from-here.js'));
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');

const [url, arg = 'legacy'] = process.argv.slice(2);
const mode = arg === 'legacy' || arg === 'auto' ? arg : { pin: arg };
const client = new Client(
  { name: 'mcpcast-ts-e2e', version: '0.0.1' },
  { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode } },
);
client.setRequestHandler('elicitation/create', async () => ({
  action: 'accept', content: { name: 'Grace' } }));
client.setRequestHandler('sampling/createMessage', async () => ({
  role: 'assistant', model: 'test', content: { type: 'text', text: 'Hi!' } }));

await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const report = { version: client.getNegotiatedProtocolVersion(),
                 server: client.getServerVersion()?.name ?? null,
                 instructions: client.getInstructions() ?? null };
report.tools = (await client.listTools()).tools.map((t) => t.name);
report.sum = (await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).structuredContent;
const progress = [];
await client.callTool({ name: 'chatty', arguments: {} },
                      { onprogress: (p) => progress.push([p.progress, p.total]) });
report.progress = progress;
const asked = await client.callTool({ name: 'ask', arguments: {} });
report.elicited = asked.content[0].text;
try {
  await client.callTool({ name: 'no_such_tool', arguments: {} });
  report.errorCode = null;
} catch (err) {
  report.errorCode = err.code ?? String(err);
}
report.isError = (await client.callTool({ name: 'fail', arguments: {} })).isError;
await client.close();
console.log(JSON.stringify(report));
