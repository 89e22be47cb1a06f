// The official openai client against amr's stub model, one line per
// feature: "ok NAME" or "FAIL NAME: why". Exits 1 when any feature fails.
// The client is built from the environment alone, as an implementation that
// amr starts builds it: OPENAI_BASE_URL and OPENAI_API_KEY.
//
//   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=x node clientmatrix.mjs
//
// The prompts name the anchor ORD-1 so the answers can be checked against
// the reply the stub's model gives for it.
import assert from "node:assert/strict";

const anchor = process.env.AMR_TEST_ANCHOR || "ORD-1";
const results = [];

async function feature(name, fn) {
  try {
    await fn();
    results.push(`ok ${name}`);
  } catch (err) {
    const why = String(err && err.message ? err.message : err).split("\n")[0];
    results.push(`FAIL ${name}: ${why}`);
  }
}

let OpenAI;
let client;
await feature("construct", async () => {
  ({ default: OpenAI } = await import("openai"));
  client = new OpenAI();
});

const ask = (text) => [{ role: "user", content: `where is my order ${anchor}? ${text}` }];

const replySchema = {
  type: "object",
  properties: {
    reply: { type: "string" },
    call_id: { type: "string" },
    urgent: { type: "boolean" },
    tags: { type: "array", items: { type: "string", enum: ["late", "lost", "other"] } },
    score: { type: "integer", minimum: 1, maximum: 5 },
  },
  required: ["reply", "call_id", "urgent", "tags", "score"],
  additionalProperties: false,
};

const sendReplyTool = {
  type: "function",
  function: {
    name: "send_reply",
    description: "Send the reply to the customer",
    strict: true,
    parameters: {
      type: "object",
      properties: {
        to: { type: "string" },
        body: { type: "string" },
        priority: { type: "string", enum: ["low", "high"] },
      },
      required: ["to", "body", "priority"],
      additionalProperties: false,
    },
  },
};

if (client) {
  await feature("non-streaming", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: ask("plain") })
      .withResponse();
    assert.match(data.id, /^call-/);
    assert.ok(data.choices[0].message.content.includes(anchor), "the reply carries the anchor");
    assert.equal(data.choices[0].finish_reason, "stop");
    assert.ok(data.usage && data.usage.total_tokens > 0, "usage counts tokens");
    assert.equal(data.usage.total_tokens, data.usage.prompt_tokens + data.usage.completion_tokens);
    assert.ok(response.headers.get("x-request-id"), "x-request-id header");
  });

  await feature("streaming", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: ask("streamed"),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage = null;
    let finish = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) {
        text += c.delta.content || "";
        if (c.finish_reason) finish = c.finish_reason;
      }
    }
    assert.ok(text.includes(anchor), "streamed text carries the anchor");
    assert.equal(finish, "stop");
    assert.ok(usage && usage.total_tokens > 0, "include_usage gives a usage chunk");
  });

  await feature("json_object", async () => {
    const r = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: ask("answer in JSON"),
      response_format: { type: "json_object" },
    });
    const obj = JSON.parse(r.choices[0].message.content);
    assert.equal(typeof obj, "object");
    assert.ok(!Array.isArray(obj) && obj !== null, "a JSON object");
  });

  await feature("json_schema", async () => {
    const r = await client.chat.completions.parse({
      model: "gpt-4o-mini",
      messages: ask("answer by the schema"),
      response_format: { type: "json_schema", json_schema: { name: "reply", strict: true, schema: replySchema } },
    });
    const p = r.choices[0].message.parsed;
    assert.ok(p, "parsed");
    assert.equal(typeof p.reply, "string");
    assert.ok(p.reply.includes(anchor), "the reply field carries the anchor");
    assert.equal(p.call_id, r.id, "call_id is the call's id");
    assert.equal(typeof p.urgent, "boolean");
    assert.ok(Array.isArray(p.tags) && p.tags.every((t) => ["late", "lost", "other"].includes(t)));
    assert.ok(Number.isInteger(p.score) && p.score >= 1 && p.score <= 5);
    assert.deepEqual(Object.keys(p).sort(), Object.keys(replySchema.properties).sort());
  });

  await feature("tool_call forced", async () => {
    const r = await client.chat.completions.parse({
      model: "gpt-4o-mini",
      messages: ask("reply with the tool"),
      tools: [sendReplyTool],
      tool_choice: { type: "function", function: { name: "send_reply" } },
    });
    const m = r.choices[0].message;
    assert.equal(r.choices[0].finish_reason, "tool_calls");
    assert.equal(m.tool_calls && m.tool_calls.length, 1, "one tool call");
    const call = m.tool_calls[0];
    assert.equal(call.type, "function");
    assert.equal(call.function.name, "send_reply");
    const args = JSON.parse(call.function.arguments);
    assert.deepEqual(Object.keys(args).sort(), ["body", "priority", "to"]);
    assert.ok(["low", "high"].includes(args.priority));
    assert.ok(args.body.includes(anchor), "the body carries the anchor");
    assert.deepEqual(call.function.parsed_arguments, args, "strict tool arguments parse");
  });

  await feature("tool_call required, streamed", async () => {
    const stream = client.chat.completions.stream({
      model: "gpt-4o-mini",
      messages: ask("reply with a tool, streamed"),
      tools: [sendReplyTool],
      tool_choice: "required",
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls[0];
    assert.equal(call.function.name, "send_reply");
    JSON.parse(call.function.arguments);
  });

  await feature("tool result turn", async () => {
    const first = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: ask("use the tool"),
      tools: [sendReplyTool],
      tool_choice: "required",
    });
    const call = first.choices[0].message.tool_calls[0];
    const r = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        ...ask("use the tool"),
        first.choices[0].message,
        { role: "tool", tool_call_id: call.id, content: "sent" },
      ],
      tools: [sendReplyTool],
    });
    assert.equal(typeof r.choices[0].message.content, "string");
  });

  await feature("error shape", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: "gpt-4o-mini", messages: [] }),
      (err) => {
        assert.ok(err instanceof OpenAI.APIError, "an APIError");
        assert.equal(err.status, 400);
        assert.equal(typeof err.code, "string", "code is a string");
        assert.equal(err.param, "messages");
        assert.equal(err.type, "invalid_request_error");
        return true;
      },
    );
  });

  await feature("models", async () => {
    const list = await client.models.list();
    assert.ok(list.data.length >= 1);
  });
}

for (const line of results) console.log(line);
const failed = results.filter((l) => l.startsWith("FAIL")).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
