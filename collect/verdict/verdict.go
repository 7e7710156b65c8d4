package verdict

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ybbench/ybbench/collect"
	"github.com/ybbench/ybbench/internal/atomicfile"
)

// Schema versions verdict.json; verdict.schema.json describes it.
const Schema = "ybbench-verdict/1"

// File names in the run directory.
const VerdictFile = "verdict.json"

//go:embed verdict.schema.json
var schemaJSON []byte

// SchemaJSON returns verdict.schema.json.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// Verdict is verdict.json: every gate's outcome for one run.
type Verdict struct {
	Schema   string       `json:"schema"`
	RunID    string       `json:"run_id"`
	Profile  string       `json:"profile"`
	Created  time.Time    `json:"created"`
	GateFile string       `json:"gate_file"`
	Baseline BaselineInfo `json:"baseline"`
	// Complete is whether every workload's measured phase finished;
	// Incomplete says which did not. Only a complete run's failed gate is
	// a verdict on the numbers.
	Complete   bool     `json:"complete"`
	Incomplete []string `json:"incomplete,omitempty"`
	// Outcome is fail when a gate failed, else cannot-evaluate when one
	// could not be evaluated, else pass.
	Outcome        string `json:"outcome"`
	Passed         int    `json:"passed"`
	Failed         int    `json:"failed"`
	CannotEvaluate int    `json:"cannot_evaluate"`
	Gates          []Gate `json:"gates"`
	// Reproduction is the result's reproduction summary ("2 of 6
	// reproduced, …"), and LimitedBy what limited each workload.
	Reproduction string            `json:"reproduction,omitempty"`
	LimitedBy    map[string]string `json:"limited_by,omitempty"`
}

// Validate checks a verdict.json document against verdict.schema.json.
func Validate(doc []byte) error { return collect.ValidateAgainst(schemaJSON, doc) }

// Write writes verdict.json atomically, after checking it against its
// schema: a verdict that does not match it is a bug, and is never
// published.
func Write(path string, v *Verdict) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := Validate(b); err != nil {
		return fmt.Errorf("verdict.json does not match %s: %w", Schema, err)
	}
	return atomicfile.WriteJSON(path, v, 0o644)
}

// Gated is whether the verdict stops a release: a gate failed, or one
// could not be evaluated and missing gates are not only warned of.
func (v *Verdict) Gated(warnMissing bool) bool {
	return v.Failed > 0 || (v.CannotEvaluate > 0 && !warnMissing)
}
