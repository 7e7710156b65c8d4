// Package awslog hands the AWS SDK's own log lines to the caller's slog
// logger at debug level. Left alone, the SDK prints them to stderr, and a
// run without credentials then shows "SDK <time> WARN falling back to
// IMDSv1 …" above ybbench's own error, which says the same (no credentials,
// where it looked) in the user's terms. With -v the lines are still there.
package awslog

import (
	"fmt"
	"log/slog"

	"github.com/aws/smithy-go/logging"
)

// To is an SDK logger writing to l at debug level, the SDK's classification
// (WARN, DEBUG) kept as an attribute.
func To(l *slog.Logger) logging.Logger {
	return logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
		l.Debug("aws sdk: "+fmt.Sprintf(format, v...), "sdk_level", string(c))
	})
}
