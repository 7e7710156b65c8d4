package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ybbench/ybbench/internal/atomicfile"
)

// HTMLFile is the report's file name in the run directory.
const HTMLFile = "report.html"

// Write builds the page of a run directory and writes report.html and its
// CSV files (report-csv/) beside result.json. It returns report.html's
// path.
func Write(runDir string) (string, error) {
	p, err := Build(runDir)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		return "", err
	}
	files, err := p.CSV()
	if err != nil {
		return "", fmt.Errorf("report csv: %w", err)
	}
	dir := filepath.Join(runDir, CSVDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, data := range files {
		if err := atomicfile.Write(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	path := filepath.Join(runDir, HTMLFile)
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
