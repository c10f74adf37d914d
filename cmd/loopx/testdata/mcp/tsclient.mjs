// tsclient.mjs drives `loopx mcp` with the official MCP TypeScript SDK
// (Client + StdioClientTransport), as TestMCP_TypeScriptSDKClient does:
//
//   node tsclient.mjs SDK_DIR PROJECT_DIR GOAL AGENT
//
// SDK_DIR holds node_modules with @modelcontextprotocol/sdk (npm ci of
// package.json here). It lists the tools, compiles every output schema with
// Ajv (JSON Schema 2020-12 and draft-07), calls should_run, round_start,
// round_finish and prompt (the SDK itself validates each result's
// structured content against the tool's output schema), checks that every
// structured result validates against its schema and that the text block
// carries the same JSON, and that a refusal is a tool error. It prints one
// JSON report on stdout and exits 0, or prints the failure on stderr and
// exits 1. Each call is awaited before the next, so stdin stays open until
// every reply has arrived.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [sdkDir, project, goal, agent] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(sdkDir), 'noop.js'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const Ajv2020 = require('ajv/dist/2020').default;
const Ajv07 = require('ajv').default;
const sdkVersion = JSON.parse(readFileSync(path.join(sdkDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version;

function fail(msg) {
  throw new Error(msg);
}

const transport = new StdioClientTransport({
  command: 'loopx',
  args: ['mcp', '--project', project, '--agent', agent],
  env: { ...process.env },
  stderr: 'inherit',
});
const client = new Client({ name: 'loopx-ts-test', version: '1.0.0' });
const report = { sdk: sdkVersion, tools: [], calls: {} };

try {
  await client.connect(transport);
  report.server = client.getServerVersion();

  const { tools } = await client.listTools();
  const validators = {};
  for (const t of tools) {
    report.tools.push(t.name);
    if (!t.outputSchema || t.outputSchema.type !== 'object') fail(`tool ${t.name}: no object output schema`);
    if (!t.inputSchema || t.inputSchema.type !== 'object') fail(`tool ${t.name}: no object input schema`);
    const strict = { strict: false, allErrors: true };
    new Ajv07(strict).compile(t.outputSchema); // the SDK's own validator dialect
    validators[t.name] = new Ajv2020(strict).compile(t.outputSchema);
  }

  async function call(name, args) {
    const res = await client.callTool({ name, arguments: args });
    const text = res.content?.[0]?.text;
    if (res.isError) return { isError: true, text };
    if (!res.structuredContent) fail(`${name}: no structured content`);
    const v = validators[name];
    if (!v(res.structuredContent)) fail(`${name}: structured content does not match the output schema: ${JSON.stringify(v.errors)}`);
    if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(res.structuredContent)) fail(`${name}: the text block is not the structured content`);
    return { isError: false, value: res.structuredContent };
  }

  const sr = await call('should_run', { goal, agent });
  report.calls.should_run = { verdict: sr.value.verdict, todo: sr.value.todo?.title ?? null };

  const st = await call('round_start', { goal, agent });
  const round = st.value.round?.id ?? fail(`round_start: no round: ${JSON.stringify(st.value.decision)}`);
  report.calls.round_start = { verdict: st.value.decision.verdict, todo: st.value.todo?.title ?? null, has_round: true };

  const fin = await call('round_finish', {
    round, agent, outcome: 'progress', done: true, tokens: 1200, summary: 'wrote the guide',
    evidence: [{ kind: 'test', status: 'pass', summary: 'go test ./...' }],
  });
  report.calls.round_finish = { charged: fin.value.charged, replayed: fin.value.replayed, outcome: fin.value.round.outcome };

  const pr = await call('prompt', { goal, agent });
  report.calls.prompt = { verdict: pr.value.verdict, chars: pr.value.chars, objective: pr.value.text.includes('Ship the v2 API') };

  const bad = await call('round_start', { goal: 'nope', agent });
  report.calls.refused = { isError: bad.isError, unknown_goal: (bad.text ?? '').includes('unknown goal "nope"') };

  await client.close();
  process.stdout.write(JSON.stringify(report) + '\n');
} catch (err) {
  process.stderr.write(`tsclient: ${err?.stack ?? err}\n`);
  try { await client.close(); } catch {}
  process.exit(1);
}
