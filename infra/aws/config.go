package aws

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/ybbench/ybbench/internal/awslog"
)

// DefaultConfig loads the SDK's configuration for a region the way every
// AWS tool does: credentials from the environment, the shared files
// (AWS_PROFILE, SSO, credential_process, assumed roles), a container's or
// an EC2 instance's role; endpoints from AWS_ENDPOINT_URL and
// AWS_ENDPOINT_URL_<SERVICE> (how a local emulator is reached); the
// SDK's standard retries. The SDK's own log lines go to log at debug
// level, not to stderr.
func DefaultConfig(log *slog.Logger) ConfigFunc {
	return func(ctx context.Context, region string) (aws.Config, error) {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region), config.WithLogger(awslog.To(log)))
		if err != nil {
			return aws.Config{}, fmt.Errorf("loading the AWS configuration: %w", err)
		}
		return cfg, nil
	}
}
