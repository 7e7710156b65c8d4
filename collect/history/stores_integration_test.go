//go:build integration

package history

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
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
	testenv.AimAtMoto(t, testenv.MotoFor(t))
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"))
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
