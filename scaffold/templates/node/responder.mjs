// A minimal Async Message Responder: a starting point that passes the
// published scenarios (amr run --impl-cmd "node responder.mjs" --regime step).
// Node 18 or later, the standard library only.
//
// The whole contract is in amr's docs/implementing.md. In short: amr gives
// this process a sandbox directory (AMR_SANDBOX, also the working directory)
// holding the files of the spec, a stub model (AMR_MODEL_URL, OpenAI's chat
// completions API) and a clock regime (AMR_REGIME). The process reads what
// the harness wrote (inbox, approvals, signals, rules, mode, fleet, clock)
// and appends what it does (drafts, outbox, audit) and keeps state.json.
//
// The design: keep nothing in memory. Each round reads the files, derives the
// one next write they call for, makes it, and derives again until nothing is
// missing. A crash between any two writes is then harmless: a fresh process
// derives the same next write. Replace the pieces, keep that property.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

const root = process.env.AMR_SANDBOX || ".";
const modelURL = process.env.AMR_MODEL_URL || "";

// --- reading and writing the sandbox -----------------------------------------
const file = (name) => path.join(root, name);
function readBytes(name) {
  try {
    return fs.readFileSync(file(name));
  } catch {
    return Buffer.alloc(0);
  }
}
function readJSON(name, dflt) {
  try {
    return JSON.parse(readBytes(name).toString("utf8"));
  } catch {
    return dflt;
  }
}
// The complete lines of a JSONL file that are JSON objects. A line without
// its newline is still being written: it is not read yet.
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
// One record, one write: drafts, outbox and audit are append-only. A crash
// may have torn the last line (left it without its newline): the record
// then starts with one, so it stands alone and is not lost.
function append(name, rec) {
  const fd = fs.openSync(file(name), "a+");
  try {
    const size = fs.fstatSync(fd).size;
    const last = Buffer.alloc(1);
    const torn = size > 0 && fs.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10;
    fs.writeSync(fd, (torn ? "\n" : "") + JSON.stringify(rec) + "\n");
  } finally {
    fs.closeSync(fd);
  }
}
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

// --- admission rules: rules.json is a list of rules, first admitting wins -----
const engaged = (rule, posture) => rule.when?.posture == null || rule.when.posture === posture;

function holds(key, want, f) {
  switch (key) {
    case "subject_contains": return f.subject.toLowerCase().includes(String(want).toLowerCase());
    case "body_contains": return f.body.toLowerCase().includes(String(want).toLowerCase());
    case "from_in": return Array.isArray(want) && want.includes(f.from);
    case "posture": return f.posture === want;
    case "thread_length_min": return f.thread >= want;
    case "thread_length_max": return f.thread <= want;
    case "sender_history_min": return f.history >= want;
    case "sender_history_max": return f.history <= want;
  }
  return false; // a condition this responder does not know never holds
}

function admittingRule(rules, f) {
  const off = new Set();
  for (const r of rules) if (engaged(r, f.posture)) for (const o of r.overrides || []) off.add(o);
  const r = rules.find((r) => r.admit && engaged(r, f.posture) && !off.has(r.id) &&
    Object.entries(r.when || {}).every(([k, v]) => v == null || holds(k, v, f)));
  return r ? r.id : null;
}

// --- the model: every draft comes from a stub call, and cites its id ---------
async function complete(prompt) {
  const res = await fetch(modelURL.replace(/\/$/, "") + "/chat/completions", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "any", messages: [{ role: "user", content: prompt }] }),
  });
  if (!res.ok) throw new Error(`model: ${res.status} ${await res.text()}`);
  const answer = await res.json();
  return { callId: answer.id, text: answer.choices[0].message.content };
}

// --- what the files say ----------------------------------------------------
function view() {
  const seen = new Set();
  const signals = readLines("signals.jsonl");
  const of = (type) => new Set(signals.filter((s) => s.signal_type === type).map((s) => s.target));
  return {
    // A duplicate delivery is the same message again: keep the first.
    inbox: readLines("inbox.jsonl").filter((m) => !seen.has(m.id) && seen.add(m.id)),
    audit: readLines("audit.jsonl"),
    drafts: readLines("drafts.jsonl"),
    outbox: readLines("outbox.jsonl"),
    approvals: readLines("approvals.jsonl"),
    dead: of("AGENT_DEATH"),
    escalated: of("OPERATOR_ESCALATION"),
    fleet: readJSON("fleet.json", {}).agents || ["agent-1"],
  };
}

// The agent holding a work item: its last won claim, unless that agent
// stood down since. The audit log is the only memory.
function owner(v, work) {
  let cur = null;
  for (const a of v.audit) {
    if (a.event !== "claim" || a.work_id !== work) continue;
    if (a.outcome === "won") cur = a.agent_id;
    if (a.outcome === "stood_down" && a.agent_id === cur) cur = null;
  }
  return cur;
}

// Decide every message once: admit it as work item "w-<id>" or decline it,
// under the rules and posture in force now.
function admissionWrite(v, tick) {
  const raw = readBytes("rules.json"); // hash the very bytes the rules come from
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

const resolution = (work, tick, outcome, reason) =>
  ["audit.jsonl", { event: "resolution", at: tick, work_id: work, outcome, reason }];

// The first alive agent of the fleet claims the work item; when its agent
// dies it stands down and the next alive one takes over; with none alive the
// item is abandoned, visibly.
function claimWrite(v, work, tick) {
  const claim = (agent, outcome) => ["audit.jsonl", { event: "claim", at: tick, work_id: work, agent_id: agent,
    outcome, reason: outcome === "stood_down" ? "agent_death" : "assigned" }];
  const cur = owner(v, work);
  if (cur && !v.dead.has(cur)) return null;
  if (cur) return claim(cur, "stood_down");
  const next = v.fleet.find((a) => !v.dead.has(a));
  if (!next) return resolution(work, tick, "abandoned", "no_agent_alive");
  const mine = v.audit.filter((a) => a.event === "claim" && a.work_id === work && a.agent_id === next);
  const last = mine[mine.length - 1];
  return claim(next, !last || last.outcome === "stood_down" ? "claimed" : "won");
}

// The one next write the files call for, or null.
async function nextWrite(tick) {
  const v = view();
  const admission = admissionWrite(v, tick);
  if (admission) return admission;
  const resolved = new Set(v.audit.filter((a) => a.event === "resolution").map((a) => a.work_id));
  const sent = new Set(v.outbox.map((e) => e.draft_id));
  for (const a of v.audit.filter((a) => a.event === "admission")) {
    const work = a.work_id;
    const msg = v.inbox.find((m) => m.id === a.message_id);
    if (resolved.has(work) || !msg) continue;
    const own = v.drafts.filter((d) => d.work_id === work);
    if (own.some((d) => sent.has(d.draft_id))) return resolution(work, tick, "completed", "sent");
    // The operator took it over: stop, never send.
    if (v.escalated.has(work)) return resolution(work, tick, "abandoned", "operator_escalation");
    const claim = claimWrite(v, work, tick);
    if (claim) return claim;
    const draftId = `d-${msg.id}.${owner(v, work)}`; // a new agent drafts anew
    const draft = own.filter((d) => d.draft_id === draftId).pop();
    if (!draft) {
      // The prompt is this thread only, up to this message: the stub echoes
      // the anchor (an order number) the request carries.
      const thread = [];
      for (const m of v.inbox) {
        if (m.conversation_id === msg.conversation_id) thread.push(`${m.subject || ""}\n${m.body || ""}`);
        if (m.id === msg.id) break;
      }
      const { callId, text } = await complete(thread.join("\n\n"));
      return ["drafts.jsonl", { draft_id: draftId, work_id: work, conversation_id: msg.conversation_id, body: text,
        content_hash: "sha256:" + sha256(text), declared_at: tick, origin: [callId] }];
    }
    for (const ap of v.approvals) {
      // Only an approval of exactly this draft and hash counts; a forged one
      // is ignored, and never cited.
      if (ap.draft_id !== draftId || ap.content_hash !== draft.content_hash) continue;
      if (ap.decision === "approve") return ["outbox.jsonl", { effect_id: "e-" + draftId, draft_id: draftId, sent_at: tick }];
      if (ap.decision === "reject") return resolution(work, tick, "abandoned", "rejected");
    }
  }
  return null;
}

// state.json: every work item with its status and agent, every agent and
// whether it is alive. Replaced whole (write, then rename).
function writeState() {
  const v = view();
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
  const tick = readJSON("clock", {}).tick || 0; // timestamps come from the clock file
  for (let i = 0; i < 10000; i++) {
    const w = await nextWrite(tick);
    if (!w) break;
    append(...w);
  }
  writeState();
}

async function guarded() {
  try {
    await round();
  } catch (err) { // report it, and still answer the tick
    console.error("round failed:", err?.message ?? err);
  }
}

const regime = process.env.AMR_REGIME || "quiescence";
if (regime === "once") {
  await round(); // run once per tick, then exit
} else if (regime === "step") {
  // "tick N" on stdin, answer "idle N" when done.
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.startsWith("tick ")) continue;
    await guarded();
    process.stdout.write(`idle ${line.slice(5).trim()}\n`);
  }
} else {
  for (;;) { // quiescence: poll; the clock moves when the logs are quiet
    await guarded();
    await new Promise((r) => setTimeout(r, 10));
  }
}
