// An Async Message Responder in Node, written on the official openai client
// with structured output, as a team would write one against the real API.
//
//   amr run --impl-cmd "node examples/node/responder.mjs" --regime step
//
// The client is built from the environment (OPENAI_BASE_URL and
// OPENAI_API_KEY, which amr points at its stub model). Like the reference it
// keeps nothing in memory: each round reads the sandbox files, derives the
// next missing write, makes it, and derives again until nothing is missing,
// so a crash between two writes is harmless. The audit log is its memory:
// who owns a work item is the claims it wrote.
//
// Per work item (one per admitted message, "w-<message id>"): the first
// alive agent of the fleet claims it; its draft is the model's structured
// answer {"reply"} to the item's own thread up to its message; a valid
// approval (draft id and content hash both match) sends it, a reject
// abandons it, an OPERATOR_ESCALATION abandons it while unsent; when its
// agent dies the next alive agent takes it over and drafts anew, and when
// none is left the item is abandoned.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import OpenAI from "openai";

const root = process.env.AMR_SANDBOX || ".";
const client = new OpenAI({ maxRetries: 0 });

const file = (name) => path.join(root, name);
const readBytes = (name) => {
  try {
    return fs.readFileSync(file(name));
  } catch {
    return Buffer.alloc(0);
  }
};
const readJSON = (name, dflt) => {
  try {
    return JSON.parse(readBytes(name).toString("utf8"));
  } catch {
    return dflt;
  }
};
// The complete lines of a JSONL file that parse as objects.
function readLines(name) {
  const text = readBytes(name).toString("utf8");
  const out = [];
  for (const line of text.slice(0, text.lastIndexOf("\n") + 1).split("\n")) {
    try {
      const rec = JSON.parse(line);
      if (rec && typeof rec === "object" && !Array.isArray(rec)) out.push(rec);
    } catch {}
  }
  return out;
}
// A crash can leave a log's last line without its newline (a torn write,
// D75): the record then begins with one, in the same write, so it is not
// glued onto the torn half.
const append = (name, rec) => {
  const fd = fs.openSync(file(name), "a+");
  try {
    let line = JSON.stringify(rec) + "\n";
    const { size } = fs.fstatSync(fd);
    if (size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) line = "\n" + line;
    }
    fs.writeSync(fd, line);
  } finally {
    fs.closeSync(fd);
  }
};
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

// --- admission rules (docs/rules.md) -----------------------------------------
const KNOWN = new Set(["subject_contains", "body_contains", "from_in", "posture", "thread_length_min",
  "thread_length_max", "sender_history_min", "sender_history_max"]);
const engaged = (rule, posture) => !rule.when || rule.when.posture == null || rule.when.posture === posture;

function matches(when, f) {
  for (const [key, want] of Object.entries(when || {})) {
    if (want == null) continue;
    if (!KNOWN.has(key)) return false;
    const ok = {
      subject_contains: () => f.subject.toLowerCase().includes(String(want).toLowerCase()),
      body_contains: () => f.body.toLowerCase().includes(String(want).toLowerCase()),
      from_in: () => Array.isArray(want) && want.includes(f.from),
      posture: () => f.posture === want,
      thread_length_min: () => f.thread >= want,
      thread_length_max: () => f.thread <= want,
      sender_history_min: () => f.history >= want,
      sender_history_max: () => f.history <= want,
    }[key]();
    if (!ok) return false;
  }
  return true;
}

function admittingRule(rules, f) {
  const off = new Set();
  for (const r of rules) if (engaged(r, f.posture)) for (const o of r.overrides || []) off.add(o);
  const r = rules.find((r) => r.admit && engaged(r, f.posture) && !off.has(r.id) && matches(r.when, f));
  return r ? r.id : null;
}

// --- the model: structured output through the official client -----------------
const draftSchema = {
  type: "object",
  properties: { reply: { type: "string" } },
  required: ["reply"],
  additionalProperties: false,
};

async function draftReply(prompt) {
  const res = await client.chat.completions.parse({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You answer customer email. Reply as JSON {\"reply\": ...}." },
      { role: "user", content: prompt },
    ],
    response_format: { type: "json_schema", json_schema: { name: "draft", strict: true, schema: draftSchema } },
  });
  return { callId: res.id, text: res.choices[0].message.parsed.reply };
}

// --- one round ---------------------------------------------------------------
function sandboxView() {
  const seen = new Set();
  const inbox = readLines("inbox.jsonl").filter((m) => !seen.has(m.id) && seen.add(m.id));
  const audit = readLines("audit.jsonl");
  const signals = readLines("signals.jsonl");
  const dead = new Set(signals.filter((s) => s.signal_type === "AGENT_DEATH").map((s) => s.target));
  const fleet = readJSON("fleet.json", {}).agents || ["agent-1"];
  return {
    inbox, audit, signals, dead, fleet,
    drafts: readLines("drafts.jsonl"),
    outbox: readLines("outbox.jsonl"),
    approvals: readLines("approvals.jsonl"),
    escalated: new Set(signals.filter((s) => s.signal_type === "OPERATOR_ESCALATION").map((s) => s.target)),
  };
}

function admissionWrite(v, tick) {
  // rules_hash is the hash of the bytes the rules are decoded from.
  const raw = readBytes("rules.json");
  let rules;
  try {
    rules = JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
  const posture = readJSON("mode.json", {}).posture;
  if (!Array.isArray(rules) || !posture) return null;
  const decided = new Set(v.audit.filter((a) => a.event === "admission" || a.event === "declined").map((a) => a.message_id));
  const thread = {};
  const history = {};
  for (const m of v.inbox) {
    thread[m.conversation_id] = (thread[m.conversation_id] || 0) + 1;
    const f = { subject: m.subject || "", body: m.body || "", from: m.from, posture,
      thread: thread[m.conversation_id], history: history[m.from] || 0 };
    history[m.from] = (history[m.from] || 0) + 1;
    if (decided.has(m.id)) continue;
    const rule = admittingRule(rules, f);
    const base = { at: tick, message_id: m.id, rules_hash: sha256(raw), posture };
    if (!rule) return ["audit.jsonl", { event: "declined", ...base }];
    return ["audit.jsonl", { event: "admission", ...base, work_id: "w-" + m.id, rule_id: rule }];
  }
  return null;
}

// owner is the agent holding a work item: its last won claim, unless that
// agent stood down since.
function owner(v, work) {
  let cur = null;
  for (const a of v.audit) {
    if (a.event !== "claim" || a.work_id !== work) continue;
    if (a.outcome === "won") cur = a.agent_id;
    if (a.outcome === "stood_down" && a.agent_id === cur) cur = null;
  }
  return cur;
}

function claimWrite(v, work, tick) {
  const claim = (agent, outcome, reason) => ["audit.jsonl", { event: "claim", at: tick, work_id: work, agent_id: agent, outcome, reason }];
  const cur = owner(v, work);
  if (cur && !v.dead.has(cur)) return null;
  if (cur) return claim(cur, "stood_down", "agent_death");
  const next = v.fleet.find((a) => !v.dead.has(a));
  if (!next) return ["audit.jsonl", { event: "resolution", at: tick, work_id: work, outcome: "abandoned", reason: "no_agent_alive" }];
  const mine = v.audit.filter((a) => a.event === "claim" && a.work_id === work && a.agent_id === next);
  const last = mine[mine.length - 1];
  if (!last || last.outcome === "stood_down") return claim(next, "claimed", "assigned");
  return claim(next, "won", "assigned");
}

async function nextWrite(tick) {
  const v = sandboxView();
  const admission = admissionWrite(v, tick);
  if (admission) return admission;
  const resolved = new Set(v.audit.filter((a) => a.event === "resolution").map((a) => a.work_id));
  const sent = new Set(v.outbox.map((e) => e.draft_id));
  for (const a of v.audit.filter((a) => a.event === "admission")) {
    const work = a.work_id;
    const msg = v.inbox.find((m) => m.id === a.message_id);
    if (resolved.has(work) || !msg) continue;
    const own = v.drafts.filter((d) => d.work_id === work);
    if (own.some((d) => sent.has(d.draft_id))) {
      return ["audit.jsonl", { event: "resolution", at: tick, work_id: work, outcome: "completed", reason: "sent" }];
    }
    if (v.escalated.has(work)) {
      return ["audit.jsonl", { event: "resolution", at: tick, work_id: work, outcome: "abandoned", reason: "operator_escalation" }];
    }
    const claim = claimWrite(v, work, tick);
    if (claim) return claim;
    const agent = owner(v, work);
    const draftId = `d-${msg.id}.${agent}`;
    const draft = own.filter((d) => d.draft_id === draftId).pop();
    if (!draft) {
      const thread = [];
      for (const m of v.inbox) {
        if (m.conversation_id === msg.conversation_id) thread.push(`${m.subject || ""}\n${m.body || ""}`);
        if (m.id === msg.id) break;
      }
      const { callId, text } = await draftReply(thread.join("\n\n"));
      return ["drafts.jsonl", { draft_id: draftId, work_id: work, conversation_id: msg.conversation_id, body: text,
        content_hash: "sha256:" + sha256(text), declared_at: tick, origin: [callId] }];
    }
    for (const ap of v.approvals) {
      // Only an approval naming this draft with exactly its hash counts;
      // a forgery is ignored and never cited.
      if (ap.draft_id !== draft.draft_id || ap.content_hash !== draft.content_hash) continue;
      if (ap.decision === "approve") return ["outbox.jsonl", { effect_id: "e-" + draft.draft_id, draft_id: draft.draft_id, sent_at: tick }];
      if (ap.decision === "reject") {
        return ["audit.jsonl", { event: "resolution", at: tick, work_id: work, outcome: "abandoned", reason: "rejected" }];
      }
    }
  }
  return null;
}

function writeState() {
  const v = sandboxView();
  const outcome = {};
  for (const a of v.audit) if (a.event === "resolution") outcome[a.work_id] ??= a.outcome;
  const items = v.audit.filter((a) => a.event === "admission").map((a) => ({
    work_id: a.work_id, status: outcome[a.work_id] || "open", assigned_agent: owner(v, a.work_id),
  }));
  const state = {
    work_items: items,
    agents: v.fleet.map((id) => ({ id, alive: !v.dead.has(id) })),
    assignments: items.filter((w) => w.assigned_agent).map((w) => ({ work_id: w.work_id, agent_id: w.assigned_agent })),
  };
  const data = JSON.stringify(state, null, 2) + "\n";
  if (readBytes("state.json").toString("utf8") !== data) {
    fs.writeFileSync(file("state.json.tmp"), data);
    fs.renameSync(file("state.json.tmp"), file("state.json"));
  }
}

async function round() {
  const tick = readJSON("clock", {}).tick || 0;
  for (let i = 0; i < 10000; i++) {
    const w = await nextWrite(tick);
    if (!w) break;
    append(...w);
  }
  writeState();
}

async function main() {
  const regime = process.env.AMR_REGIME || "quiescence";
  if (regime === "once") return round();
  if (regime === "step") {
    for await (const line of readline.createInterface({ input: process.stdin })) {
      if (!line.startsWith("tick ")) continue;
      try {
        await round();
      } catch (err) {
        console.error("round failed:", err && err.message ? err.message : err);
      }
      process.stdout.write(`idle ${line.slice(5).trim()}\n`);
    }
    return;
  }
  for (;;) {
    try {
      await round();
    } catch (err) {
      console.error("round failed:", err && err.message ? err.message : err);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

await main();
