package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The failure taxonomy of spec §5: every FAIL is one of these.
const (
	ClassMechanism     = "mechanism"
	ClassAdapter       = "adapter"
	ClassFixtureDefect = "fixture-defect"
)

// ClassesFormat tags a classification file.
const ClassesFormat = "amr.classes/v1"

// ClassesFile is the name of the classification file in a submission
// directory: the failure classes the submission discloses.
const ClassesFile = "classes.json"

// Classification is one FAIL's class: the implementation, the scenario and
// the level that failed, and why it is that class.
type Classification struct {
	Impl          string `json:"impl,omitempty"`
	Scenario      string `json:"scenario"`
	Level         string `json:"level"`
	Class         string `json:"class"`
	Justification string `json:"justification,omitempty"`
}

// Classes is a classification file.
type Classes struct {
	Format  string           `json:"format"`
	Classes []Classification `json:"classes"`
}

// classSource says where classifications come from, which decides what
// they must carry.
type classSource struct {
	path string
	// override files must justify every entry; a submission's disclosure
	// names its own implementation.
	override bool
	impl     string
}

// loadClasses reads and checks a classification file.
func loadClasses(src classSource) ([]Classification, error) {
	data, err := os.ReadFile(src.path)
	if err != nil {
		return nil, err
	}
	return parseClasses(src, data)
}

// parseClasses checks a classification file: a known format, a known class,
// a level L0-L6, a scenario, one entry per (impl, scenario, level), the
// implementation named (in an override) or the submission's own (in a
// disclosure), and a justification wherever one is mandatory: on every
// override, and on every fixture-defect (spec §5: "with mandatory public
// justification").
func parseClasses(src classSource, data []byte) ([]Classification, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Classes
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: not a classification file: %w", src.path, err)
	}
	if c.Format != ClassesFormat {
		return nil, fmt.Errorf("%s: format: %q, want %q", src.path, c.Format, ClassesFormat)
	}
	seen := map[classKey]int{}
	for i := range c.Classes {
		e := &c.Classes[i]
		at := func(field string) string { return fmt.Sprintf("%s: classes[%d].%s", src.path, i, field) }
		switch {
		case src.override && e.Impl == "":
			return nil, fmt.Errorf("%s: required in an override file", at("impl"))
		case !src.override && e.Impl == "":
			e.Impl = src.impl
		case !src.override && e.Impl != src.impl:
			return nil, fmt.Errorf("%s: %q, but the submission is %q's: a disclosure classifies only its own failures", at("impl"), e.Impl, src.impl)
		}
		if e.Scenario == "" {
			return nil, fmt.Errorf("%s: required", at("scenario"))
		}
		if _, err := levelIndex(e.Level); err != nil {
			return nil, fmt.Errorf("%s: %w", at("level"), err)
		}
		switch e.Class {
		case ClassMechanism, ClassAdapter, ClassFixtureDefect:
		default:
			return nil, fmt.Errorf("%s: %q is not a class (%s, %s or %s)", at("class"), e.Class, ClassMechanism, ClassAdapter, ClassFixtureDefect)
		}
		e.Justification = strings.TrimSpace(e.Justification)
		if e.Justification == "" {
			switch {
			case src.override:
				return nil, fmt.Errorf("%s: required in an override file: say why the class is %s", at("justification"), e.Class)
			case e.Class == ClassFixtureDefect:
				return nil, fmt.Errorf("%s: required for a fixture-defect: an annulled result needs its public reason", at("justification"))
			}
		}
		k := classKey{e.Impl, e.Scenario, e.Level}
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s: classifies %s %s %s again (first at classes[%d])", at("level"), e.Impl, e.Scenario, e.Level, j)
		}
		seen[k] = i
	}
	return c.Classes, nil
}

type classKey struct{ impl, scenario, level string }
