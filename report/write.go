package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// HTMLFile is the report's file name in the run directory.
const HTMLFile = "report.html"

// Write builds the page of a run directory and writes report.html and its
// CSV files (report-csv/) beside result.json. It returns report.html's
// path. A record or CPU file it cannot read is reported after the rest of
// the page was written.
func Write(runDir string) (string, error) {
	p, berr := Build(runDir)
	if p == nil {
		return "", berr
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		return "", errors.Join(err, berr)
	}
	files, err := p.CSV()
	if err != nil {
		return "", errors.Join(fmt.Errorf("report csv: %w", err), berr)
	}
	dir := filepath.Join(runDir, CSVDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errors.Join(err, berr)
	}
	for name, data := range files {
		if err := atomicfile.Write(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", errors.Join(err, berr)
		}
	}
	path := filepath.Join(runDir, HTMLFile)
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return "", errors.Join(err, berr)
	}
	return path, berr
}
