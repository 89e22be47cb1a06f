package examples

// weak-rules-once reads rules.json at its first step and never again: the
// rules it admits by are the ones it first saw.
type rulesOnce struct {
	reference
	firstRules []byte
}

// see makes the view show the rules the instance first read.
func (p *rulesOnce) see(v *view, c *caches) {
	if p.firstRules == nil {
		if v.rulesRaw == nil {
			return
		}
		p.firstRules = append([]byte(nil), v.rulesRaw...)
	}
	v.rulesRaw = p.firstRules
	v.rules, v.rulesOK = c.parseRules(p.firstRules)
}
