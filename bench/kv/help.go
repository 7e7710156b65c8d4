package kv

import (
	"fmt"
	"strings"

	"github.com/ybbench/ybbench/bench/agentutil"
)

// workloadAbout says what each workload does, for the help.
var workloadAbout = []struct{ name, about string }{
	{WorkloadKV, "single keys: inserts key 0, 1, … up to --num_unique_keys, then updates random ones;\n" +
		"reads random keys among those known written and verifies every value"},
	{WorkloadBatchKV, "writes --batch_size keys per LOGGED batch (counted per key, timed per batch);\n" +
		"reads single keys as CassandraKeyValue does"},
}

// helpRequest reports whether args ask for help, and for which workload:
// the name after the help flag (yb-sample-apps' `--help <workload>`), in
// --help=<workload>, or given by --workload; "" for the overview. Values of
// other flags are skipped, so a password "-h" is not a help request.
func helpRequest(args []string) (workload string, asked bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, val, ok := strings.Cut(a, "="); ok && agentutil.IsHelpFlag(name) {
			workload, asked = val, true
			continue
		}
		if agentutil.IsHelpFlag(a) {
			asked = true
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				workload = args[i+1]
				i++
			}
			continue
		}
		name, _, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if d, ok := flagsByName[name]; ok && d.kind == kindValue && !hasVal && i+1 < len(args) {
			if name == "workload" && workload == "" {
				workload = args[i+1]
			}
			i++
		}
	}
	return workload, asked
}

// Help is `ybload kv --help`: the usage, the workloads and every flag;
// for a workload (`--help CassandraKeyValue`), its own usage and the flags
// it takes. An unknown workload is an error.
func Help(workload string) (string, error) {
	var b strings.Builder
	batch := false
	switch workload {
	case "":
		b.WriteString("Usage: ybload kv --workload <workload> --nodes host:port[,host:port…] [--flag value]...\n")
		b.WriteString("  yb-sample-apps' key-value workloads over YCQL, with java -jar yb-sample-apps.jar\n")
		b.WriteString("  replaced by ybload kv; ybload kv --help <workload> shows one workload's flags.\n\nWorkloads:\n")
		for _, w := range workloadAbout {
			fmt.Fprintf(&b, "  %s\n      %s\n", w.name, strings.ReplaceAll(w.about, "\n", "\n      "))
		}
		batch = true
	case WorkloadKV, WorkloadBatchKV:
		batch = workload == WorkloadBatchKV
		fmt.Fprintf(&b, "Usage: ybload kv --workload %s --nodes host:port[,host:port…] [--flag value]...\n", workload)
		for _, w := range workloadAbout {
			if w.name == workload {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(w.about, "\n", "\n  "))
			}
		}
	default:
		return "", fmt.Errorf("--help %s: ybload kv runs %s and %s", workload, WorkloadKV, WorkloadBatchKV)
	}
	writeFlags(&b, "\nFlags (yb-sample-apps'), with their defaults:\n", groupTool, batch)
	writeFlags(&b, "\nRefused (yb-sample-apps' flags ybload does not implement):\n", groupRefused, batch)
	writeFlags(&b, "\nybload's own:\n", groupYbload, batch)
	b.WriteString("\nThe metrics line goes to standard output every 5 s, as yb-sample-apps prints it;\n" +
		"logs and errors to standard error.\n" +
		"Exit codes: 0 ok, 1 tool error, 2 bad flags, 5 database or workload error.\n")
	return b.String(), nil
}

// writeFlags lists the flags of group g (the batch-only ones when batch).
func writeFlags(b *strings.Builder, title string, g flagGroup, batch bool) {
	b.WriteString(title)
	for _, d := range flagDefs {
		if d.group != g || (d.batchOnly && !batch) {
			continue
		}
		flag := "--" + d.name
		if d.arg != "" {
			flag += " " + d.arg
		}
		fmt.Fprintf(b, "  %-36s %s\n", flag, d.helpText())
	}
}

// helpText is a flag's help line after its name: what it does, whether it
// is required, and its default.
func (d *flagDef) helpText() string {
	help := d.help
	if d.required != "" {
		help += " (required)"
	}
	switch {
	case d.def != "":
		help += " [" + d.def + "]"
	case d.defNote != "":
		help += " [" + d.defNote + "]"
	}
	return help
}
