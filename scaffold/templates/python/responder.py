#!/usr/bin/env python3
"""A minimal Async Message Responder: a starting point that passes the
published scenarios (amr run --impl-cmd "python3 responder.py" --regime step).

The whole contract is in amr's docs/implementing.md. In short: amr gives
this process a sandbox directory (AMR_SANDBOX, also the working directory)
holding the files of the spec, a stub model (AMR_MODEL_URL, OpenAI's chat
completions API) and a clock regime (AMR_REGIME). The process reads what
the harness wrote (inbox, approvals, signals, rules, mode, fleet, clock)
and appends what it does (drafts, outbox, audit) and keeps state.json.

The design: keep nothing in memory. Each round reads the files, derives the
one next write they call for, makes it, and derives again until nothing is
missing. A crash between any two writes is then harmless: a fresh process
derives the same next write. Replace the pieces, keep that property.
"""

import hashlib
import json
import os
import sys
import time
import urllib.request

ROOT = os.environ.get("AMR_SANDBOX", ".")
MODEL_URL = os.environ.get("AMR_MODEL_URL", "")


# --- reading and writing the sandbox -----------------------------------------

def read_bytes(name):
    try:
        with open(os.path.join(ROOT, name), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def read_json(name, default):
    try:
        return json.loads(read_bytes(name))
    except ValueError:
        return default


def read_lines(name):
    """The complete lines of a JSONL file that are JSON objects. A line
    without its newline is still being written: it is not read yet."""
    data = read_bytes(name)
    out = []
    for line in data[: data.rfind(b"\n") + 1].split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def append(name, rec):
    """One record, one write: drafts, outbox and audit are append-only.

    A crash may have torn the last line (left it without its newline): the
    record then starts with one, so it stands alone and is not lost."""
    line = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
    fd = os.open(os.path.join(ROOT, name), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
    finally:
        os.close(fd)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


# --- admission rules: rules.json is a list of rules, first admitting wins -----

def engaged(rule, posture):
    want = (rule.get("when") or {}).get("posture")
    return want is None or want == posture


def holds(key, want, f):
    if key == "subject_contains":
        return str(want).lower() in f["subject"].lower()
    if key == "body_contains":
        return str(want).lower() in f["body"].lower()
    if key == "from_in":
        return isinstance(want, list) and f["from"] in want
    if key == "posture":
        return f["posture"] == want
    if key in ("thread_length_min", "sender_history_min"):
        return f[key.split("_")[0]] >= want
    if key in ("thread_length_max", "sender_history_max"):
        return f[key.split("_")[0]] <= want
    return False  # a condition this responder does not know never holds


def admitting_rule(rules, f):
    off = set()
    for r in rules:
        if engaged(r, f["posture"]):
            off.update(r.get("overrides") or [])
    for r in rules:
        when = r.get("when") or {}
        if r.get("admit") and engaged(r, f["posture"]) and r.get("id") not in off \
                and all(holds(k, v, f) for k, v in when.items() if v is not None):
            return r.get("id")
    return None


# --- the model: every draft comes from a stub call, and cites its id ---------

def complete(prompt):
    body = json.dumps({"model": "any", "messages": [{"role": "user", "content": prompt}]}).encode()
    req = urllib.request.Request(MODEL_URL.rstrip("/") + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        answer = json.load(resp)
    return answer["id"], answer["choices"][0]["message"]["content"]


# --- what the files say ----------------------------------------------------

class View:
    def __init__(self):
        seen = set()
        # A duplicate delivery is the same message again: keep the first.
        self.inbox = [m for m in read_lines("inbox.jsonl") if not (m.get("id") in seen or seen.add(m.get("id")))]
        self.audit = read_lines("audit.jsonl")
        self.drafts = read_lines("drafts.jsonl")
        self.outbox = read_lines("outbox.jsonl")
        self.approvals = read_lines("approvals.jsonl")
        signals = read_lines("signals.jsonl")
        self.dead = {s.get("target") for s in signals if s.get("signal_type") == "AGENT_DEATH"}
        self.escalated = {s.get("target") for s in signals if s.get("signal_type") == "OPERATOR_ESCALATION"}
        self.fleet = read_json("fleet.json", {}).get("agents") or ["agent-1"]

    def owner(self, work):
        """The agent holding a work item: its last won claim, unless that
        agent stood down since. The audit log is the only memory."""
        cur = None
        for a in self.audit:
            if a.get("event") == "claim" and a.get("work_id") == work:
                if a.get("outcome") == "won":
                    cur = a.get("agent_id")
                elif a.get("outcome") == "stood_down" and a.get("agent_id") == cur:
                    cur = None
        return cur


def admission_write(v, tick):
    """Decide every message once: admit it as work item "w-<id>" or decline
    it, under the rules and posture in force now."""
    raw = read_bytes("rules.json")  # hash the very bytes the rules come from
    try:
        rules = json.loads(raw)
    except ValueError:
        return None
    posture = read_json("mode.json", {}).get("posture")
    if not isinstance(rules, list) or not posture:
        return None
    decided = {a.get("message_id") for a in v.audit if a.get("event") in ("admission", "declined")}
    thread, history = {}, {}
    for m in v.inbox:
        conv, sender = m.get("conversation_id"), m.get("from")
        thread[conv] = thread.get(conv, 0) + 1
        f = {"subject": m.get("subject") or "", "body": m.get("body") or "", "from": sender,
             "posture": posture, "thread": thread[conv], "sender": history.get(sender, 0)}
        history[sender] = history.get(sender, 0) + 1
        if m.get("id") in decided:
            continue
        rule = admitting_rule(rules, f)
        base = {"at": tick, "message_id": m.get("id"), "rules_hash": sha256(raw), "posture": posture}
        if rule is None:
            return "audit.jsonl", dict(base, event="declined")
        return "audit.jsonl", dict(base, event="admission", work_id="w-" + m.get("id"), rule_id=rule)
    return None


def claim_write(v, work, tick):
    """The first alive agent of the fleet claims the work item; when its
    agent dies it stands down and the next alive one takes over; with none
    alive the item is abandoned, visibly."""
    def claim(agent, outcome):
        return "audit.jsonl", {"event": "claim", "at": tick, "work_id": work, "agent_id": agent,
                               "outcome": outcome, "reason": "assigned" if outcome != "stood_down" else "agent_death"}
    cur = v.owner(work)
    if cur and cur not in v.dead:
        return None
    if cur:
        return claim(cur, "stood_down")
    alive = [a for a in v.fleet if a not in v.dead]
    if not alive:
        return "audit.jsonl", {"event": "resolution", "at": tick, "work_id": work,
                               "outcome": "abandoned", "reason": "no_agent_alive"}
    mine = [a for a in v.audit if a.get("event") == "claim" and a.get("work_id") == work and a.get("agent_id") == alive[0]]
    if not mine or mine[-1].get("outcome") == "stood_down":
        return claim(alive[0], "claimed")
    return claim(alive[0], "won")


def resolution(work, tick, outcome, reason):
    return "audit.jsonl", {"event": "resolution", "at": tick, "work_id": work, "outcome": outcome, "reason": reason}


def next_write(tick):
    """The one next write the files call for, or None."""
    v = View()
    w = admission_write(v, tick)
    if w:
        return w
    resolved = {a.get("work_id") for a in v.audit if a.get("event") == "resolution"}
    sent = {e.get("draft_id") for e in v.outbox}
    messages = {m.get("id"): m for m in v.inbox}
    for a in v.audit:
        work, msg = a.get("work_id"), messages.get(a.get("message_id"))
        if a.get("event") != "admission" or work in resolved or msg is None:
            continue
        own = [d for d in v.drafts if d.get("work_id") == work]
        if any(d.get("draft_id") in sent for d in own):
            return resolution(work, tick, "completed", "sent")
        if work in v.escalated:  # the operator took it over: stop, never send
            return resolution(work, tick, "abandoned", "operator_escalation")
        w = claim_write(v, work, tick)
        if w:
            return w
        draft_id = "d-%s.%s" % (msg.get("id"), v.owner(work))  # a new agent drafts anew
        draft = next((d for d in reversed(own) if d.get("draft_id") == draft_id), None)
        if draft is None:
            # The prompt is this thread only, up to this message: the stub
            # echoes the anchor (an order number) the request carries.
            thread = []
            for m in v.inbox:
                if m.get("conversation_id") == msg.get("conversation_id"):
                    thread.append("%s\n%s" % (m.get("subject") or "", m.get("body") or ""))
                if m.get("id") == msg.get("id"):
                    break
            call_id, text = complete("\n\n".join(thread))
            return "drafts.jsonl", {"draft_id": draft_id, "work_id": work, "conversation_id": msg.get("conversation_id"),
                                    "body": text, "content_hash": "sha256:" + sha256(text.encode()),
                                    "declared_at": tick, "origin": [call_id]}
        for ap in v.approvals:
            # Only an approval of exactly this draft and hash counts; a
            # forged one is ignored, and never cited.
            if ap.get("draft_id") != draft_id or ap.get("content_hash") != draft.get("content_hash"):
                continue
            if ap.get("decision") == "approve":
                return "outbox.jsonl", {"effect_id": "e-" + draft_id, "draft_id": draft_id, "sent_at": tick}
            if ap.get("decision") == "reject":
                return resolution(work, tick, "abandoned", "rejected")
    return None


def write_state():
    """state.json: every work item with its status and agent, every agent
    and whether it is alive. Replaced whole (write, then rename)."""
    v = View()
    outcome = {}
    for a in v.audit:
        if a.get("event") == "resolution":
            outcome.setdefault(a.get("work_id"), a.get("outcome"))
    items = [{"work_id": a.get("work_id"), "status": outcome.get(a.get("work_id"), "open"),
              "assigned_agent": v.owner(a.get("work_id"))} for a in v.audit if a.get("event") == "admission"]
    state = {"work_items": items,
             "agents": [{"id": x, "alive": x not in v.dead} for x in v.fleet],
             "assignments": [{"work_id": w["work_id"], "agent_id": w["assigned_agent"]} for w in items if w["assigned_agent"]]}
    data = (json.dumps(state, indent=2) + "\n").encode()
    if read_bytes("state.json") != data:
        tmp = os.path.join(ROOT, "state.json.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(ROOT, "state.json"))


def round_of_work():
    tick = read_json("clock", {}).get("tick", 0)  # timestamps come from the clock file
    for _ in range(10000):
        w = next_write(tick)
        if w is None:
            break
        append(*w)
    write_state()


def main():
    regime = os.environ.get("AMR_REGIME", "quiescence")
    if regime == "once":  # run once per tick, then exit
        round_of_work()
        return 0
    if regime == "step":  # "tick N" on stdin, answer "idle N" when done
        for line in sys.stdin:
            if line.startswith("tick "):
                try:
                    round_of_work()
                except Exception as e:  # report it, and still answer the tick
                    print("round failed: %r" % (e,), file=sys.stderr)
                print("idle " + line[5:].strip(), flush=True)
        return 0
    while True:  # quiescence: poll; the clock moves when the logs are quiet
        try:
            round_of_work()
        except Exception as e:
            print("round failed: %r" % (e,), file=sys.stderr)
        time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
