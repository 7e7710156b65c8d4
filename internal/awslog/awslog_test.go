package awslog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/smithy-go/logging"
)

func TestToWritesTheSDKsLinesAtDebug(t *testing.T) {
	var debug, info bytes.Buffer
	To(slog.New(slog.NewTextHandler(&debug, &slog.HandlerOptions{Level: slog.LevelDebug}))).
		Logf(logging.Warn, "falling back to IMDSv1: %s", "getToken refused")
	got := debug.String()
	for _, want := range []string{"level=DEBUG", `msg="aws sdk: falling back to IMDSv1: getToken refused"`, "sdk_level=WARN"} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want it to hold %q", got, want)
		}
	}
	// At the CLI's default level (info) the line is not shown.
	To(slog.New(slog.NewTextHandler(&info, nil))).Logf(logging.Warn, "falling back to IMDSv1")
	if info.Len() != 0 {
		t.Errorf("at info level the SDK's line was written: %q", info.String())
	}
}
