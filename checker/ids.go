package checker

// knownIDs collects, for each field naming another kind of id (cite.go),
// the ids of that kind the run has, so that a value spelled like an approval
// id is taken for that kind of id only when it is one (D43).
func (f *facts) knownIDs() knownIDs {
	k := knownIDs{}
	add := func(field, id string) {
		if id == "" {
			return
		}
		if k[field] == nil {
			k[field] = map[string]bool{}
		}
		k[field][id] = true
	}
	for _, m := range f.messages {
		add("message_id", m.ID)
		add("conversation_id", m.ConversationID)
	}
	for _, d := range f.b.Inbox {
		add("message_id", d.ID)
		add("conversation_id", d.ConversationID)
	}
	for _, d := range f.drafts {
		add("draft_id", d.DraftID)
		add("work_id", d.WorkID)
		add("conversation_id", d.ConversationID)
	}
	for _, e := range f.effects {
		add("effect_id", e.EffectID)
	}
	for _, a := range f.admissions {
		add("work_id", a.WorkID)
	}
	for _, c := range f.claims {
		add("agent_id", c.AgentID)
	}
	for _, a := range f.b.Fleet {
		add("agent_id", a)
	}
	for _, ss := range [][]*signal{f.escalations, f.deaths} {
		for _, s := range ss {
			add("signal_id", s.SignalID)
		}
	}
	for _, s := range f.b.Signals {
		add("signal_id", s.ID)
	}
	for id := range f.modelCalls {
		add("call_id", id)
	}
	if !f.final.missing && f.final.err == nil {
		for _, wi := range f.final.snap.WorkItems {
			add("work_id", wi.WorkID)
		}
		for _, a := range f.final.snap.Agents {
			add("agent_id", a.ID)
		}
	}
	if f.states != nil {
		for id := range f.states.workIDs {
			add("work_id", id)
		}
		for id := range f.states.agentIDs {
			add("agent_id", id)
		}
	}
	return k
}
