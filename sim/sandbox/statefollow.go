package sandbox

import "bytes"

// StateFollower parses the versions of state.json of one run, one after the
// other, and decodes only the entries whose bytes changed since the version
// before. An implementation may list every work item it ever admitted and
// rewrite the file every tick, so its versions together grow with the
// square of the run; following them this way touches each version's bytes
// once to find its entries and compare them, and decodes only what changed.
// A version the fast path cannot read exactly (anything ParseState would
// reject or read through encoding/json) is handed to ParseState whole, so
// every version reads exactly as ParseState reads it.
type StateFollower struct {
	snap      Snapshot // the current version; its lists alias the buffers below
	ok        bool     // the current version parsed
	raws      [3][][]byte
	fast      bool // the current version was read here, so raws hold its entries' bytes
	spare     Snapshot
	spareRaws [3][][]byte

	count  [2]map[string]int        // work id -> its entries in work_items, assignments
	single map[string]WorkItemState // work id -> its one work_items entry
	agent  map[string]string        // work id -> the agent of its one assignments entry
	before map[string][2]int        // counts of the works touched, before this version
	works  []string                 // works touched by this version, in the order first touched
	agents bool                     // this version changed the agents list
	keys   [][]byte                 // the top-level keys read so far
}

// StateChange says what a version changed from the one before it.
type StateChange struct {
	// Works lists, once each, every work id whose entries in work_items or
	// assignments were added, removed or changed (and possibly some that
	// were not). Every other work id's entries are as they were.
	Works []string
	// Agents reports that the agents list may have changed.
	Agents bool
	// Whole reports a version compared as a whole with the one before:
	// either did not parse or was not read on the fast path. Works then
	// lists every work id of both.
	Whole bool
}

// Lists of a snapshot, in ParseState's order.
var stateLists = [3]string{"work_items", "agents", "assignments"}

// Next parses the next version and says what changed. The snapshot and the
// change alias the follower's storage and hold until the next call; data
// must not change while it is the current version.
func (f *StateFollower) Next(data []byte) (Snapshot, *LineError, StateChange) {
	if f.count[0] == nil {
		f.count = [2]map[string]int{{}, {}}
		f.single, f.agent, f.before = map[string]WorkItemState{}, map[string]string{}, map[string][2]int{}
	}
	f.works, f.agents = f.works[:0], false
	clear(f.before)
	incremental := f.ok && f.fast
	if f.readFast(trimBOM(data), incremental) {
		if !incremental {
			return f.snap, nil, f.wholeChange(f.spare)
		}
		f.settle()
		return f.snap, nil, StateChange{Works: f.works, Agents: f.agents}
	}
	old := f.snap
	s, err := ParseState(data)
	f.snap, f.spare, f.ok, f.fast = s, Snapshot{}, err == nil, false
	f.spareRaws = f.raws
	for k := range f.raws {
		f.raws[k] = nil
	}
	return f.snap, err, f.wholeChange(old)
}

// readFast reads data into the spare buffers, against the current version
// when incremental, and on success makes it the current one. It reads the
// top-level object as scanObject does (plain keys, each once) in the same
// pass that reads the three lists, so an entry taken as it was is compared,
// not scanned. Whatever it accepts, ParseState reads the same: the lists'
// bytes are the same whichever way the object is decoded.
func (f *StateFollower) readFast(data []byte, incremental bool) bool {
	next := Snapshot{WorkItems: f.spare.WorkItems[:0], Agents: f.spare.Agents[:0], Assignments: f.spare.Assignments[:0]}
	var raws [3][][]byte
	var seen [3]bool
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	keys := f.keys[:0]
	i = skipSpace(data, i+1)
	for {
		end, plain := scanString(data, i)
		if end < 0 || !plain {
			return false
		}
		key := data[i+1 : end-1]
		for _, k := range keys {
			if string(k) == string(key) {
				return false
			}
		}
		keys = append(keys, key)
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		if k := listIndex(key); k < 0 {
			end = scanValue(data, i, 1)
		} else {
			raws[k], seen[k] = f.spareRaws[k][:0], true
			end = f.readList(k, data, i, incremental, &next, &raws[k])
		}
		if end < 0 {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return false
		}
		i = skipSpace(data, i+1)
	}
	f.keys = keys
	if skipSpace(data, i+1) != len(data) || seen != [3]bool{true, true, true} {
		return false
	}
	f.spare, f.snap = f.snap, next
	f.spareRaws, f.raws = f.raws, raws
	f.ok, f.fast = true, true
	return true
}

func listIndex(key []byte) int {
	for k, name := range stateLists {
		if string(key) == name {
			return k
		}
	}
	return -1
}

// readList reads the list starting at data[i] as scanObjects does, and
// returns where it ends (-1 when it is not a list of objects scanFields
// reads, each without a problem). Every entry whose bytes equal the entry
// it lines up with in the current version is reused. The line up is a
// forward walk that looks one entry ahead, so an entry changed in place,
// added or removed costs one decode; anything else only decodes more.
func (f *StateFollower) readList(k int, data []byte, i int, incremental bool, next *Snapshot, raws *[][]byte) int {
	var prev [][]byte
	if incremental {
		prev = f.raws[k]
	}
	j := 0
	if i >= len(data) || data[i] != '[' {
		return -1
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		f.dropFrom(k, j, len(prev))
		return i + 1
	}
	var fields []field
	for {
		// An entry that starts with the bytes of the entry it lines up
		// with is that entry: scanFields reads an object's bytes and
		// nothing past them, so it would end where that entry ends.
		var entry []byte
		switch {
		case j < len(prev) && bytes.HasPrefix(data[i:], prev[j]):
			entry = data[i : i+len(prev[j]) : i+len(prev[j])]
			f.keep(k, j, next)
			j++
		case j+1 < len(prev) && bytes.HasPrefix(data[i:], prev[j+1]):
			entry = data[i : i+len(prev[j+1]) : i+len(prev[j+1])]
			f.dropFrom(k, j, j+1)
			f.keep(k, j+1, next)
			j += 2
		default:
			fs, end, ok := scanFields(data, i, fields[:0])
			if !ok {
				return -1
			}
			fields = fs
			entry = data[i:end:end]
			o := object{fields: fs}
			*next = appendStateEntry(*next, stateLists[k], &o)
			if o.err != nil {
				return -1
			}
			if incremental {
				f.added(k, next)
				f.agents = f.agents || k == 1
				if j < len(prev) && f.sameKey(k, j, next) {
					f.dropFrom(k, j, j+1)
					j++
				}
			}
		}
		*raws = append(*raws, entry)
		i = skipSpace(data, i+len(entry))
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			f.dropFrom(k, j, len(prev))
			return i + 1
		default:
			return -1
		}
	}
}

// keep copies entry j of the current version's list k to the next version.
func (f *StateFollower) keep(k, j int, next *Snapshot) {
	switch k {
	case 0:
		next.WorkItems = append(next.WorkItems, f.snap.WorkItems[j])
	case 1:
		next.Agents = append(next.Agents, f.snap.Agents[j])
	default:
		next.Assignments = append(next.Assignments, f.snap.Assignments[j])
	}
}

// sameKey reports whether the entry just decoded names what entry j of the
// current version names: then it is taken for that entry changed in place.
func (f *StateFollower) sameKey(k, j int, next *Snapshot) bool {
	switch k {
	case 0:
		return f.snap.WorkItems[j].WorkID == next.WorkItems[len(next.WorkItems)-1].WorkID
	case 1:
		return f.snap.Agents[j].ID == next.Agents[len(next.Agents)-1].ID
	default:
		return f.snap.Assignments[j].WorkID == next.Assignments[len(next.Assignments)-1].WorkID
	}
}

// touch notes a work before its counts change.
func (f *StateFollower) touch(w string) {
	if _, ok := f.before[w]; !ok {
		f.before[w] = [2]int{f.count[0][w], f.count[1][w]}
		f.works = append(f.works, w)
	}
}

// dropFrom counts entries [from, to) of the current version's list k out.
func (f *StateFollower) dropFrom(k, from, to int) {
	f.agents = f.agents || k == 1 && from < to
	for j := from; j < to; j++ {
		switch k {
		case 0:
			w := f.snap.WorkItems[j].WorkID
			f.touch(w)
			f.count[0][w]--
		case 2:
			w := f.snap.Assignments[j].WorkID
			f.touch(w)
			f.count[1][w]--
		}
	}
}

// added counts the entry just decoded in.
func (f *StateFollower) added(k int, next *Snapshot) {
	switch k {
	case 0:
		wi := next.WorkItems[len(next.WorkItems)-1]
		f.touch(wi.WorkID)
		f.count[0][wi.WorkID]++
		f.single[wi.WorkID] = wi
	case 2:
		a := next.Assignments[len(next.Assignments)-1]
		f.touch(a.WorkID)
		f.count[1][a.WorkID]++
		f.agent[a.WorkID] = a.AgentID
	}
}

// settle brings the one-entry lookups of the touched works up to date. A
// work with at most one entry before and after has, if any, the entry just
// decoded; one that had or has more is looked up in the list.
func (f *StateFollower) settle() {
	for _, w := range f.works {
		b := f.before[w]
		for k := range 2 {
			n := f.count[k][w]
			switch {
			case n == 0:
				delete(f.count[k], w)
				f.forget(k, w)
			case n == 1 && b[k] > 1:
				f.lookUp(k, w)
			}
		}
	}
}

func (f *StateFollower) forget(k int, w string) {
	if k == 0 {
		delete(f.single, w)
	} else {
		delete(f.agent, w)
	}
}

// lookUp finds the one entry of a work in list k of the current version.
func (f *StateFollower) lookUp(k int, w string) {
	if k == 0 {
		for _, wi := range f.snap.WorkItems {
			if wi.WorkID == w {
				f.single[w] = wi
			}
		}
		return
	}
	for _, a := range f.snap.Assignments {
		if a.WorkID == w {
			f.agent[w] = a.AgentID
		}
	}
}

// wholeChange recounts the current version from nothing and lists every
// work of it and of old, the version before.
func (f *StateFollower) wholeChange(old Snapshot) StateChange {
	for _, w := range workIDsOf(old) {
		f.touch(w)
	}
	for k := range 2 {
		clear(f.count[k])
	}
	clear(f.single)
	clear(f.agent)
	for _, wi := range f.snap.WorkItems {
		f.touch(wi.WorkID)
		f.count[0][wi.WorkID]++
		f.single[wi.WorkID] = wi
	}
	for _, a := range f.snap.Assignments {
		f.touch(a.WorkID)
		f.count[1][a.WorkID]++
		f.agent[a.WorkID] = a.AgentID
	}
	f.settle()
	return StateChange{Works: f.works, Agents: true, Whole: true}
}

func workIDsOf(s Snapshot) []string {
	var out []string
	for _, wi := range s.WorkItems {
		out = append(out, wi.WorkID)
	}
	for _, a := range s.Assignments {
		out = append(out, a.WorkID)
	}
	return out
}

// Entries returns a work's entries in the current version, in list order:
// its work_items entries and the agents of its assignments entries.
func (f *StateFollower) Entries(w string) ([]WorkItemState, []string) {
	var items []WorkItemState
	var agents []string
	switch n := f.count[0][w]; {
	case n == 1:
		items = []WorkItemState{f.single[w]}
	case n > 1:
		for _, wi := range f.snap.WorkItems {
			if wi.WorkID == w {
				items = append(items, wi)
			}
		}
	}
	switch n := f.count[1][w]; {
	case n == 1:
		agents = []string{f.agent[w]}
	case n > 1:
		for _, a := range f.snap.Assignments {
			if a.WorkID == w {
				agents = append(agents, a.AgentID)
			}
		}
	}
	return items, agents
}
