# Lists which of a phase's files the agent wrote, one name a line, so that
# a file it did not write is told apart from one that could not be copied.
cd '/opt/it'\''s here/ybbench/agent' || exit 0
for f in workloada-run.jsonl workloada-run.json workloada-run.dat; do
  if [ -f "$f" ]; then
    printf '%s\n' "$f"
  fi
done
