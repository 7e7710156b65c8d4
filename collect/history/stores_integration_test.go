//go:build integration

package history

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"

	"github.com/ybbench/ybbench/internal/testenv"
)

// ownPostgresDatabase is a database of the test's own on the test
// environment's PostgreSQL, dropped at its end, as a store URL.
func ownPostgresDatabase(t *testing.T) (string, *testenv.Postgres) {
	t.Helper()
	pg := testenv.PostgresFor(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL(pg.Database))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("ybbench_history_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(context.Background())
	})
	return pg.URL(name), pg
}

// storeContract is what every store keeps to: each run once however many
// writers add it at once (the first of eight opening a fresh store makes
// its tables while the others wait), entries read back whole.
func storeContract(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	parent := t.TempDir()
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, 3*writers)
	added := make(chan bool, writers)
	shared := entryOf(t, t.TempDir(), "shared", time.Unix(1_700_000_000, 0), "b-shared", 1)
	entries := make([]*Entry, writers)
	for i := range entries {
		entries[i] = entryOf(t, parent, fmt.Sprintf("run-%d", i), time.Unix(1_800_000_000+int64(i), 0), fmt.Sprintf("b%d", i), 1+float64(i)/10)
	}
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(ctx, url)
			if err != nil {
				errs <- fmt.Errorf("writer %d: open: %w", i, err)
				return
			}
			defer st.Close()
			if ok, err := st.Add(ctx, entries[i]); err != nil || !ok {
				errs <- fmt.Errorf("writer %d: added %v, %v", i, ok, err)
			}
			ok, err := st.Add(ctx, shared)
			if err != nil {
				errs <- err
			}
			added <- ok
		}()
	}
	wg.Wait()
	close(errs)
	close(added)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	for ok := range added {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the shared run was added by %d writers, want 1", n)
	}
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Entry{}
	for _, e := range got {
		byID[e.RunID] = e
	}
	if len(got) != writers+1 || len(byID) != writers+1 {
		t.Fatalf("%d entries, want %d runs once each", len(got), writers+1)
	}
	for _, e := range entries {
		g := byID[e.RunID]
		if g == nil || g.Build.ID != e.Build.ID || !equal(g.Points[0].Figures["throughput"], e.Points[0].Figures["throughput"]) {
			t.Errorf("run %s read back as %+v", e.RunID, g)
		}
	}
}

// PostgreSQL: the contract, and refusals that say why before anything is
// written: wrong credentials (the password never in the message), a
// server that does not answer, tables of a newer schema.
func TestIntegrationPostgresStore(t *testing.T) {
	url, pg := ownPostgresDatabase(t)
	storeContract(t, url)
	ctx := context.Background()

	wrong := strings.Replace(url, ":"+pg.Password+"@", ":not-the-password@", 1)
	if _, err := Open(ctx, wrong); err == nil || !strings.Contains(err.Error(), "cannot connect") || !strings.Contains(err.Error(), "password authentication failed") || strings.Contains(err.Error(), "not-the-password") {
		t.Errorf("wrong credentials: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	if _, err := Open(ctx, "postgres://u:p@"+closed+"/x?sslmode=disable"); err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("nothing listening: %v", err)
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "INSERT INTO ybbench_history_schema (version, applied) VALUES ($1, 'later')", SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, url); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("newer schema: %v", err)
	}
}

// aimAtMoto points this process's AWS calls at moto, with static
// credentials and no shared files, and returns an S3 client of its own.
func aimAtMoto(t *testing.T) *s3.Client {
	t.Helper()
	m := testenv.MotoFor(t)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": m.URL, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1", "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "",
		"AWS_CONFIG_FILE": "/nonexistent/ybbench-test", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/ybbench-test"} {
		t.Setenv(k, v)
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
}

// S3 (moto): the contract; one document per run under the prefix, never
// rewritten; a document of a newer schema refused; a missing bucket
// refused when the store is opened.
func TestIntegrationS3Store(t *testing.T) {
	c := aimAtMoto(t)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bench")}); err != nil {
		t.Fatal(err)
	}
	url := "s3://bench/ci/ybbench"
	storeContract(t, url)
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("bench"), Prefix: aws.String("ci/ybbench/runs/")})
	if err != nil || len(list.Contents) != 9 {
		t.Fatalf("objects under the prefix: %d, %v", len(list.Contents), err)
	}
	before := *list.Contents[0].LastModified
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	e := entryOf(t, t.TempDir(), "run-0", time.Unix(1_800_000_000, 0), "another-build", 2)
	if ok, err := st.Add(ctx, e); err != nil || ok {
		t.Errorf("run-0 again: added %v, %v", ok, err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("bench"), Key: list.Contents[0].Key})
	if err != nil || head.LastModified.After(before) {
		t.Errorf("a document was rewritten: %v %v", head.LastModified, err)
	}

	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bench"), Key: aws.String("ci/ybbench/runs/zz-later.json"),
		Body: strings.NewReader(`{"schema":"ybbench-history/2","run_id":"zz-later"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Entries(ctx); !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "zz-later.json") {
		t.Errorf("a newer document: %v", err)
	}
	if _, err := Open(ctx, "s3://no-such-bucket/x"); err == nil || !strings.Contains(err.Error(), "cannot list the bucket") {
		t.Errorf("a missing bucket: %v", err)
	}
}
