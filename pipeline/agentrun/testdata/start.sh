# Runs one agent phase in the foreground: the pid file lets a stop find
# it, and the agent replaces this shell, so the pid is the agent's.
set -eu
cd '/opt/it'\''s here/ybbench/agent'
echo $$ > workloadd-run.pid
exec '/opt/it'\''s here/ybbench/bin/ybload' run ysql -P workloads/workloadd -P /b/agent/workloadd-run.properties -p recordcount=1000 -p operationcount=10001 -p ybload.agent.index=0 -p ybload.agent.count=1 -p maxexecutiontime=180 -p threadcount=256 -s -p ybload.agent=client1 -p ybload.records=/b/agent/workloadd-run.jsonl -p ybload.summary=/b/agent/workloadd-run.json -p ybload.start.at=1700000000000 > workloadd-run.dat
