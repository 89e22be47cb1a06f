#!/usr/bin/env python3
"""A small Async Message Responder in Python, correct for L0-L2.

It shows that amr judges any program, not only Go compiled into it. Like
the reference, it keeps nothing in memory: every round reads the sandbox
files, derives what is missing, writes it, and derives again until nothing
is missing. A crash between any two writes is harmless because a fresh
process derives the same next write.

Contract (docs/processes.md): the sandbox is AMR_SANDBOX (the working
directory), the stub model is at AMR_MODEL_URL, and AMR_REGIME says how the
clock is driven:
  step        read "tick N" lines on stdin, do a round, answer "idle N"
  once        do a round and exit 0
  quiescence  do a round every 10ms until killed

What it does per work item: each admitted message is its own work item
"w-<message id>"; its draft is the stub model's reply to the subject and
body of its own conversation up to that message; the first valid approval
(draft id and content hash both match) sends it, a reject abandons it, an
OPERATOR_ESCALATION abandons it while it is unsent. It writes no claims:
one agent never contests, so it does not try for L3.
"""

import hashlib
import json
import os
import sys
import time

ROOT = os.environ.get("AMR_SANDBOX") or os.environ.get("LITMUS_SANDBOX") or "."
MODEL = os.environ.get("AMR_MODEL_URL") or os.environ.get("LITMUS_STUB_URL") or ""


def path(name):
    return os.path.join(ROOT, name)


def read_bytes(name):
    try:
        with open(path(name), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def read_lines(name):
    """The complete lines of a JSONL file that parse as objects."""
    data = read_bytes(name)
    data = data[: data.rfind(b"\n") + 1]
    out = []
    for line in data.split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def read_json(name, default):
    try:
        return json.loads(read_bytes(name))
    except ValueError:
        return default


def append(name, rec):
    # A crash can leave the log's last line without its newline (a torn
    # write, D75): the record then begins with one, in the same write, so
    # it is not glued onto the torn half.
    line = (json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
    fd = os.open(path(name), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        end = os.lseek(fd, 0, os.SEEK_END)
        if end > 0 and os.pread(fd, 1, end - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
    finally:
        os.close(fd)


def write_atomic(name, data):
    tmp = path(name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path(name))


# --- admission rules (docs/rules.md) ---------------------------------------

KNOWN = {
    "subject_contains", "body_contains", "from_in", "posture",
    "thread_length_min", "thread_length_max",
    "sender_history_min", "sender_history_max",
}


def engaged(rule, posture):
    want = (rule.get("when") or {}).get("posture")
    return want is None or want == posture


def matches(when, facts):
    for key, want in when.items():
        if want is None:
            continue
        if key not in KNOWN:
            return False
        if key == "subject_contains" and want.lower() not in facts["subject"].lower():
            return False
        if key == "body_contains" and want.lower() not in facts["body"].lower():
            return False
        if key == "from_in" and facts["from"] not in want:
            return False
        if key == "posture" and facts["posture"] != want:
            return False
        if key == "thread_length_min" and facts["thread"] < want:
            return False
        if key == "thread_length_max" and facts["thread"] > want:
            return False
        if key == "sender_history_min" and facts["history"] < want:
            return False
        if key == "sender_history_max" and facts["history"] > want:
            return False
    return True


def admitting_rule(rules, facts):
    off = set()
    for r in rules:
        if engaged(r, facts["posture"]):
            off.update(r.get("overrides") or [])
    for r in rules:
        if r.get("admit") and engaged(r, facts["posture"]) and r.get("id") not in off \
                and matches(r.get("when") or {}, facts):
            return r.get("id")
    return None


# --- the model ---------------------------------------------------------------

def complete(prompt):
    import urllib.request  # only a process that drafts pays for the import

    body = json.dumps({"model": "amr-stub", "messages": [{"role": "user", "content": prompt}]})
    req = urllib.request.Request(MODEL.rstrip("/") + "/chat/completions", data=body.encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        reply = json.load(resp)
    return reply["id"], reply["choices"][0]["message"]["content"]


# --- one round ---------------------------------------------------------------

def next_write(tick):
    """Returns the next (file, record) the files call for, or None."""
    inbox, seen = [], set()
    for m in read_lines("inbox.jsonl"):
        if m.get("id") not in seen:
            seen.add(m.get("id"))
            inbox.append(m)
    audit = read_lines("audit.jsonl")
    drafts = read_lines("drafts.jsonl")
    outbox = read_lines("outbox.jsonl")
    approvals = read_lines("approvals.jsonl")
    signals = read_lines("signals.jsonl")

    decided = {a.get("message_id") for a in audit if a.get("event") in ("admission", "declined")}
    works = [a for a in audit if a.get("event") == "admission"]
    resolved = {a.get("work_id") for a in audit if a.get("event") == "resolution"}
    escalated = {s.get("target") for s in signals if s.get("signal_type") == "OPERATOR_ESCALATION"}
    by_id = {m["id"]: m for m in inbox}
    sent_drafts = {e.get("draft_id") for e in outbox}

    # Admissions, under the rules and posture in force now.
    # rules_hash is the sha256 of the bytes read, and the rules are decoded
    # from those same bytes: read twice, a rewrite in between would pair
    # one version's rules with the other's hash.
    rules_raw = read_bytes("rules.json")
    try:
        rules = json.loads(rules_raw)
    except ValueError:
        rules = None
    posture = read_json("mode.json", {}).get("posture")
    if isinstance(rules, list) and posture:
        rules_hash = hashlib.sha256(rules_raw).hexdigest()
        thread, history = {}, {}
        for m in inbox:
            conv, sender = m.get("conversation_id"), m.get("from")
            thread[conv] = thread.get(conv, 0) + 1
            facts = {"subject": m.get("subject", ""), "body": m.get("body", ""), "from": sender,
                     "posture": posture, "thread": thread[conv], "history": history.get(sender, 0)}
            history[sender] = history.get(sender, 0) + 1
            if m["id"] in decided:
                continue
            rule = admitting_rule(rules, facts)
            if rule is None:
                return "audit.jsonl", {"event": "declined", "at": tick, "message_id": m["id"],
                                       "rules_hash": rules_hash, "posture": posture}
            return "audit.jsonl", {"event": "admission", "at": tick, "work_id": "w-" + m["id"],
                                   "message_id": m["id"], "rules_hash": rules_hash,
                                   "rule_id": rule, "posture": posture}

    for a in works:
        work, msg = a.get("work_id"), by_id.get(a.get("message_id"))
        if work in resolved or msg is None:
            continue
        own = [d for d in drafts if d.get("work_id") == work]
        if any(d.get("draft_id") in sent_drafts for d in own):
            return "audit.jsonl", {"event": "resolution", "at": tick, "work_id": work,
                                   "outcome": "completed", "reason": "sent"}
        if work in escalated:
            return "audit.jsonl", {"event": "resolution", "at": tick, "work_id": work,
                                   "outcome": "abandoned", "reason": "operator_escalation"}
        if not own:
            prompt = []
            for m in inbox:
                if m.get("conversation_id") == msg.get("conversation_id"):
                    prompt.append("%s\n%s" % (m.get("subject", ""), m.get("body", "")))
                if m["id"] == msg["id"]:
                    break
            call_id, text = complete("\n\n".join(prompt))
            return "drafts.jsonl", {
                "draft_id": "d-" + msg["id"], "work_id": work,
                "conversation_id": msg.get("conversation_id"), "body": text,
                "content_hash": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
                "declared_at": tick, "origin": [call_id]}
        latest = own[-1]
        for ap in approvals:
            # Valid only when it names this draft with exactly its hash;
            # anything else (a forgery included) is ignored, never cited.
            if ap.get("draft_id") != latest.get("draft_id") or ap.get("content_hash") != latest.get("content_hash"):
                continue
            if ap.get("decision") == "approve":
                return "outbox.jsonl", {"effect_id": "e-" + latest["draft_id"],
                                        "draft_id": latest["draft_id"], "sent_at": tick}
            if ap.get("decision") == "reject":
                return "audit.jsonl", {"event": "resolution", "at": tick, "work_id": work,
                                       "outcome": "abandoned", "reason": "rejected",
                                       "approval_id": ap.get("approval_id")}
    return None


def write_state():
    audit = read_lines("audit.jsonl")
    fleet = read_json("fleet.json", {}).get("agents") or ["agent-1"]
    outcome = {a.get("work_id"): a.get("outcome") for a in audit if a.get("event") == "resolution"}
    items = [{"work_id": a["work_id"], "status": outcome.get(a["work_id"], "open"), "assigned_agent": None}
             for a in audit if a.get("event") == "admission"]
    data = (json.dumps({"work_items": items, "agents": [{"id": x, "alive": True} for x in fleet],
                        "assignments": []}, indent=2) + "\n").encode()
    if read_bytes("state.json") != data:
        write_atomic("state.json", data)


def round_of_work():
    tick = read_json("clock", {}).get("tick", 0)
    for _ in range(10000):
        w = next_write(tick)
        if w is None:
            break
        append(*w)
    write_state()


def main():
    regime = os.environ.get("AMR_REGIME", "quiescence")
    if regime == "once":
        round_of_work()
        return 0
    if regime == "step":
        for line in sys.stdin:
            if line.startswith("tick "):
                try:
                    round_of_work()
                except Exception as e:  # reported, and the tick still answered
                    print("round failed: %r" % (e,), file=sys.stderr)
                sys.stdout.write("idle " + line[5:].strip() + "\n")
                sys.stdout.flush()
        return 0
    while True:
        try:
            round_of_work()
        except Exception as e:
            print("round failed: %r" % (e,), file=sys.stderr)
        time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
