package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// PhaseSummary is the part of an agent's phase summary (the .json beside a
// phase's records) that the stages after the agent read: the DDL the agent
// ran, when it created the table. Each engine's summary has more; this is
// what they share.
type PhaseSummary struct {
	DDL string `json:"ddl,omitempty"`
}

// UnmarshalJSON reads the DDL in either shape the engines write it: one
// string (YCSB's one table; the KV apps write none), or each table's statements
// (sysbench's tables, which differ only in their number). Of several
// tables it keeps the first's statements and says how many there were, so
// that agents that made the same tables compare equal and the report has
// one line to show.
func (s *PhaseSummary) UnmarshalJSON(b []byte) error {
	var raw struct {
		DDL json.RawMessage `json:"ddl"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	s.DDL = ""
	ddl := bytes.TrimSpace(raw.DDL)
	if len(ddl) == 0 || string(ddl) == "null" {
		return nil
	}
	if ddl[0] == '"' {
		return json.Unmarshal(ddl, &s.DDL)
	}
	var tables [][]string
	if err := json.Unmarshal(ddl, &tables); err != nil {
		return fmt.Errorf("ddl: neither a statement nor a list of each table's statements: %w", err)
	}
	if len(tables) == 0 {
		return nil
	}
	s.DDL = strings.Join(tables[0], "; ")
	if len(tables) > 1 {
		s.DDL += fmt.Sprintf(" (the first of %d tables)", len(tables))
	}
	return nil
}
