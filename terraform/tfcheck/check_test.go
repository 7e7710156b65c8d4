package tfcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoSchema is the schema derived from testdata/mini.jsii (provider
// "demo"), for checks that need no test environment.
func demoSchema(t *testing.T) map[string]*Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "mini.jsii"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Derive(f)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Schema{"demo": s}
}

// The check against the miniature schema: a correct module passes, and
// each kind of defect is reported at its line.
func TestCheckSchemaDemo(t *testing.T) {
	schemas := demoSchema(t)
	for _, c := range []struct{ name, src, want string }{
		{"correct", `provider "demo" {
  region = "r"
}
resource "demo_machine" "m" {
  count     = 2
  size      = 4
  labels_v2 = { a = "b" }
  settings  = { size_gb = 1 }
  dynamic "disk" {
    for_each = [1, 2]
    content {
      size_gb = disk.value
    }
  }
  lifecycle {
    create_before_destroy = true
  }
}
data "demo_image" "i" {
  family = "f"
}
output "o" {
  value = [demo_machine.m[0].public_ip, demo_machine.m[*].ipv6_address, demo_machine.m[0].disk[0].disk_id, data.demo_image.i.self_link]
}
`, ""},
		{"unknown type", `resource "demo_machin" "m" {
  size = 1
}
`, `main.tf:1: unknown resource type "demo_machin" (provider demo 4.5.6)`},
		{"no schema for the provider", `resource "other_thing" "m" {}
`, `main.tf:1: resource other_thing: no schema for provider "other"`},
		{"missing required", `resource "demo_machine" "m" {
  disk {
  }
}
`, "main.tf:1: demo_machine.m: missing required argument \"size\"\nmain.tf:2: demo_machine.m.disk: missing required argument \"size_gb\""},
		{"block as argument", `resource "demo_machine" "m" {
  size = 1
  disk = [{ size_gb = 1 }]
}
`, `main.tf:3: demo_machine.m: "disk" is a block, not an argument: write disk { … }`},
		{"argument as block", `resource "demo_machine" "m" {
  size = 1
  settings {
    size_gb = 1
  }
}
`, `main.tf:3: demo_machine.m: "settings" is an argument, not a block: write settings = …`},
		{"unknown key of an object argument", `resource "demo_machine" "m" {
  size     = 1
  settings = { size_gb = 1, sizegb = 2 }
}
`, `main.tf:3: demo_machine.m.settings: unknown argument "sizegb"`},
		{"unknown attribute of an object argument", `resource "demo_machine" "m" {
  size = 1
}
output "o" {
  value = demo_machine.m.settings.disk_idd
}
`, `main.tf:5: demo_machine.m.settings has no attribute "disk_idd"`},
		{"unknown data attribute", `data "demo_image" "i" {
  family = "f"
}
output "o" {
  value = data.demo_image.i.selflink
}
`, `main.tf:5: data.demo_image.i has no attribute "selflink"`},
		{"undeclared data source", `output "o" {
  value = data.demo_image.j.self_link
}
`, `main.tf:2: reference to data.demo_image.j, which the module does not declare`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := ParseModule(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range CheckSchema(m, schemas) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != c.want {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), c.want)
			}
		})
	}
}

// A syntax error names the file and line.
func TestParseModuleSyntaxError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.tf"), []byte("resource \"a\" \"b\" {\n  x = \n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseModule(dir)
	if err == nil || !strings.Contains(err.Error(), "bad.tf:2") {
		t.Fatalf("error %v, want one naming bad.tf:2", err)
	}
	if _, err := ParseModule(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no .tf files") {
		t.Fatalf("error %v for an empty directory", err)
	}
}
