package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// s3Store keeps one JSON document per run, <prefix>/runs/<run id>.json,
// written once (an object is never rewritten: a run already there is left
// as it is) and whole (an object store's put is atomic).
type s3Store struct {
	c              *s3.Client
	bucket, prefix string
	desc           string
}

// openS3 opens s3://bucket/prefix with the SDK's usual credentials and
// region (AWS_REGION, profiles; us-east-1 when none), and an endpoint of
// AWS_ENDPOINT_URL(_S3) when set (path-style then, as S3-compatible
// servers expect). The bucket is listed at once, so that a missing bucket
// or refused credentials are known before anything runs.
func openS3(ctx context.Context, raw string) (Store, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("history store %s: want s3://bucket/prefix", raw)
	}
	// The SDK's own log lines are dropped: a failure is returned, and says
	// what the SDK's warning would (no credentials, where it looked).
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(logging.Nop{}))
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", raw, err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	custom := os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != ""
	s := &s3Store{c: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle, o.DisableLogOutputChecksumValidationSkipped = custom, true }),
		bucket: u.Host, prefix: strings.Trim(u.Path, "/"), desc: "history store " + raw}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := s.c.ListObjectsV2(lctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.key("")), MaxKeys: aws.Int32(1)}); err != nil {
		return nil, fmt.Errorf("%s: cannot list the bucket: %w", s.desc, err)
	}
	return s, nil
}

func (s *s3Store) Describe() string { return s.desc }
func (s *s3Store) Close() error     { return nil }

// key is a run's object name.
func (s *s3Store) key(runID string) string {
	name := "runs/"
	if runID != "" {
		name += runID + ".json"
	}
	return path.Join(s.prefix, name) + map[bool]string{true: "/", false: ""}[runID == ""]
}

// Add puts the run's document unless it is there: a conditional put
// (If-None-Match: *), after a look, for servers that ignore the condition.
func (s *s3Store) Add(ctx context.Context, e *Entry) (bool, error) {
	k := s.key(e.RunID)
	if _, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k}); err == nil {
		return false, nil
	} else if !notFound(err) {
		return false, fmt.Errorf("%s: %s: %w", s.desc, k, err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	_, err = s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &k, Body: strings.NewReader(string(b)),
		ContentType: aws.String("application/json"), IfNoneMatch: aws.String("*")})
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "PreconditionFailed" || ae.ErrorCode() == "ConditionalRequestConflict") {
		return false, nil // another writer put it first
	}
	if err != nil {
		return false, fmt.Errorf("%s: %s: %w", s.desc, k, err)
	}
	return true, nil
}

// Entries reads every run's document.
func (s *s3Store) Entries(ctx context.Context) ([]*Entry, error) {
	var out []*Entry
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.key(""))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.desc, err)
		}
		for _, o := range page.Contents {
			if !strings.HasSuffix(aws.ToString(o.Key), ".json") {
				continue
			}
			e, err := s.get(ctx, aws.ToString(o.Key))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *s3Store) get(ctx context.Context, k string) (*Entry, error) {
	obj, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.desc, k, err)
	}
	defer obj.Body.Close()
	b, err := io.ReadAll(obj.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.desc, k, err)
	}
	e, err := decodeEntry(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", s.desc, k, err)
	}
	return e, nil
}

func notFound(err error) bool {
	var nf *s3types.NotFound
	var nk *s3types.NoSuchKey
	var ae smithy.APIError
	return errors.As(err, &nf) || errors.As(err, &nk) || (errors.As(err, &ae) && (ae.ErrorCode() == "NotFound" || ae.ErrorCode() == "404"))
}
