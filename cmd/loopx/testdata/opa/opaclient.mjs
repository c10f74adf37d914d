// The npm client of OPA (@open-policy-agent/opa, pinned in package-lock.json)
// against loopx serve's HTTP API. Usage:
//   node opaclient.mjs URL TOKEN GOAL AGENT TODO GATE
// Prints one JSON document: each decision's result as the client returns
// it, what it does with an undefined document, and with a wrong token.
import { OPAClient } from "@open-policy-agent/opa";

const [url, token, goal, agent, todo, gate] = process.argv.slice(2);
const opa = new OPAClient(url, { headers: { authorization: `Bearer ${token}` } });
const out = {};
out.run = await opa.evaluate("loopx/run/decision", { goal, agent });
out.permission = await opa.evaluate("loopx/permission/decision", { goal, agent, tool: "Bash", command: "rm -rf .loopx" });
out.claim = await opa.evaluate("loopx/claim/decision", { agent, todo });
out.gate = await opa.evaluate("loopx/gate/decision", { gate, option: "approve", as: `agent:${agent}` });
try {
  const u = await opa.evaluate("loopx/nothing/here", { goal });
  out.undefined = u === undefined ? { undefined: true } : { result: u };
} catch (e) {
  out.undefined = { error: String(e) };
}
try {
  await new OPAClient(url, { headers: { authorization: "Bearer wrong" } }).evaluate("loopx/run/decision", { goal, agent });
  out.wrong_token = "answered";
} catch (e) {
  out.wrong_token = { status: e?.httpMeta?.response?.status ?? null };
}
process.stdout.write(JSON.stringify(out) + "\n");
