package tfcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The derivation reads a miniature package written in the shape of
// cdktf's jsii output: the provider, one resource with an inherited
// argument, a repeated nested block with a computed attribute, an
// object-typed argument that is not a block, computed attributes and an
// ambiguous one, and one data source.
func TestDerive(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "mini.jsii"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Derive(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "provider": "demo",
  "version": "4.5.6",
  "package": "@example/provider-demo@1.2.3",
  "config": {
    "attributes": {
      "region": false
    }
  },
  "resources": {
    "demo_machine": {
      "attributes": {
        "labels_v2": false,
        "settings": false,
        "size": true
      },
      "blocks": {
        "disk": {
          "block": {
            "attributes": {
              "size_gb": true
            },
            "exported": [
              "disk_id",
              "size_gb"
            ]
          }
        }
      },
      "objects": {
        "settings": {
          "attributes": {
            "size_gb": true
          },
          "exported": [
            "disk_id",
            "size_gb"
          ]
        }
      },
      "exported": [
        "disk",
        "ipv6_address",
        "labels_v2",
        "public_ip",
        "settings",
        "size"
      ]
    }
  },
  "data_sources": {
    "demo_image": {
      "attributes": {
        "family": true
      },
      "exported": [
        "family",
        "self_link"
      ]
    }
  },
  "ambiguous": [
    "demo_machine.ipv6_address"
  ]
}`
	if string(got) != want {
		t.Errorf("derived schema:\n%s\nwant:\n%s", got, want)
	}
}

// A schema survives the round trip through its compressed file.
func TestSchemaRoundTrip(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "mini.jsii"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Derive(f)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSchema(&buf, s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.schema.json.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := LoadSchema(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Resources["demo_machine"].Exports("public_ip") || back.Resources["demo_machine"].Exports("size_input") {
		t.Errorf("exports after the round trip: %v", back.Resources["demo_machine"].Exported)
	}
}

// A package without a provider class is refused, not turned into an
// empty schema that would let every module pass.
func TestDeriveRefusesEmpty(t *testing.T) {
	if _, err := Derive(bytes.NewReader([]byte(`{"name":"x","version":"1","types":{}}`))); err == nil {
		t.Fatal("no error for a package without resources")
	}
}
