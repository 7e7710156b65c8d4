package terraform_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	modules "github.com/ybbench/ybbench/terraform"
)

// Each embedded module holds exactly the .tf files of its directory, so a
// file added to a module cannot be left out of the binary.
func TestEmbeddedModules(t *testing.T) {
	for dir, fsys := range map[string]fs.FS{"local": modules.Local(), "aws": modules.AWS(), "gcp": modules.GCP()} {
		embedded, err := fs.Glob(fsys, "*")
		if err != nil {
			t.Fatal(err)
		}
		onDisk, err := filepath.Glob(filepath.Join(dir, "*.tf"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range onDisk {
			onDisk[i] = filepath.Base(onDisk[i])
		}
		if !slices.Equal(embedded, onDisk) || len(onDisk) == 0 {
			t.Errorf("%s: embedded %v, directory has %v", dir, embedded, onDisk)
		}
		for _, name := range embedded {
			b, err := fs.ReadFile(fsys, name)
			if err != nil {
				t.Fatal(err)
			}
			d, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || string(b) != string(d) {
				t.Errorf("%s/%s: embedded copy differs from the file (%v)", dir, name, err)
			}
		}
	}
}
