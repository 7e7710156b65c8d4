// Package tfcheck checks ybbench's Terraform modules without running
// Terraform: against a provider's schema (every type, argument, block and
// referenced attribute must exist; required arguments must be set) and
// against the project's network and lifetime policy. No provider binary can
// be downloaded where the tests run, so `terraform validate` is not an
// option; the schemas are derived from the provider packages' jsii metadata
// (see jsii.go and scripts/testenv/providers.sh).
package tfcheck

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Schema is one provider's compact schema: the provider block, every
// resource and every data source, keyed by Terraform type name.
type Schema struct {
	// Provider is the provider's local name (aws, google).
	Provider string `json:"provider"`
	// Version is the provider release the schema was generated from.
	Version string `json:"version"`
	// Package names the package and version the schema was derived from.
	Package string `json:"package"`
	// Config is the provider block's schema.
	Config *Block `json:"config"`
	// Resources and DataSources are keyed by type (aws_instance).
	Resources   map[string]*Block `json:"resources"`
	DataSources map[string]*Block `json:"data_sources"`
	// Ambiguous lists exported attributes whose snake_case name was
	// guessed from a camelCase one that matches no argument (type.name),
	// for a reader who doubts a reference check.
	Ambiguous []string `json:"ambiguous,omitempty"`
}

// Block is the schema of a resource, a data source, a provider block or one
// of their nested blocks.
type Block struct {
	// Attributes are the arguments, keyed by name; the value says whether
	// the argument is required.
	Attributes map[string]bool `json:"attributes,omitempty"`
	// Blocks are the nested blocks, keyed by block type.
	Blocks map[string]*Nested `json:"blocks,omitempty"`
	// Objects are the arguments whose value is an object or a list of
	// objects (cdktf gives them an interface type but does not call them
	// blocks), keyed by name: the schema of one object.
	Objects map[string]*Block `json:"objects,omitempty"`
	// Exported are the attributes a reference may read (top-level
	// resources and data sources only): the arguments and the computed
	// attributes.
	Exported []string `json:"exported,omitempty"`
}

// Nested is a nested block type: whether at least one is required, and
// its own schema.
type Nested struct {
	Required bool   `json:"required,omitempty"`
	Block    *Block `json:"block"`
}

// Exports reports whether a reference may read the attribute name.
func (b *Block) Exports(name string) bool {
	for _, e := range b.Exported {
		if e == name {
			return true
		}
	}
	return false
}

// LoadSchema reads a schema file written by WriteSchema (gzip-compressed
// JSON when its name ends in .gz).
func LoadSchema(path string) (*Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("provider schema: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("provider schema %s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	var s Schema
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("provider schema %s: %w", path, err)
	}
	if s.Provider == "" || s.Config == nil || len(s.Resources) == 0 {
		return nil, fmt.Errorf("provider schema %s: no provider name, provider block or resources", path)
	}
	return &s, nil
}

// WriteSchema writes s as gzip-compressed JSON.
func WriteSchema(w io.Writer, s *Schema) error {
	z := gzip.NewWriter(w)
	enc := json.NewEncoder(z)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("write schema: %w", err)
	}
	return z.Close()
}
