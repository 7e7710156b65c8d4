// Command tfschema derives the compact provider schema that the module
// tests check terraform/aws and terraform/gcp against, from a cdktf
// provider package's .jsii file (scripts/testenv/providers.sh runs it once
// per package version).
//
//	tfschema -jsii package/.jsii -o aws.schema.json.gz
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/ybbench/ybbench/terraform/tfcheck"
)

func main() {
	in := flag.String("jsii", "", "the package's .jsii file")
	out := flag.String("o", "", "the schema file to write (gzip-compressed JSON)")
	flag.Parse()
	if *in == "" || *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: tfschema -jsii FILE -o FILE")
		os.Exit(2)
	}
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "tfschema:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := tfcheck.Derive(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	// Written beside the target and renamed, so that an interrupted run
	// never leaves a truncated schema that a later `up` would trust.
	tmp := out + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := tfcheck.WriteSchema(w, s); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "tfschema: %s: provider %s %s, %d resources, %d data sources, %d ambiguous attribute names\n",
		out, s.Provider, s.Version, len(s.Resources), len(s.DataSources), len(s.Ambiguous))
	return nil
}
