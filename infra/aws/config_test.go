package aws

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/smithy-go/logging"
)

// The SDK's own lines (the IMDSv1 fallback warning of a machine without
// credentials) reach the run's logger at debug level instead of stderr.
func TestDefaultConfigLogsTheSDKToTheRunsLogger(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg, err := DefaultConfig(log)(context.Background(), "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region != "us-east-1" {
		t.Errorf("region %q, want us-east-1", cfg.Region)
	}
	cfg.Logger.Logf(logging.Warn, "falling back to IMDSv1")
	if got := buf.String(); !strings.Contains(got, "aws sdk: falling back to IMDSv1") || !strings.Contains(got, "level=DEBUG") {
		t.Errorf("the SDK's line did not reach the logger at debug: %q", got)
	}
}
