-- wrk script of wrk-load.ts: requests spread over the paths of a file (its first argument, one path
-- a line), each thread walking them in turn from its own offset as the lean generator's connections
-- do. Every request is formatted once in init (with wrk's -H headers), so a request costs a table
-- look-up. done() prints one line the bench reads, with wrk's own CPU time: /proc/self/stat sums
-- the threads that have been joined by then, which their own counters no longer show.

local threads = 0

function setup(thread)
  thread:set("offset", threads)
  threads = threads + 1
end

local requests = {}
local count = 0
local at = 0

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then
      count = count + 1
      requests[count] = wrk.format("GET", line)
    end
  end
  if count == 0 then
    error("no paths in " .. args[1])
  end
  at = (offset or 0) % count
end

function request()
  at = at % count + 1
  return requests[at]
end

function done(summary, latency, requests)
  local stat = io.open("/proc/self/stat"):read("*l")
  -- Fields after the command name's closing parenthesis: state is the 1st, utime the 12th, stime the 13th.
  local fields = {}
  for field in stat:sub(stat:find(")", 1, true) + 2):gmatch("%S+") do
    fields[#fields + 1] = field
  end
  local e = summary.errors
  io.write(string.format(
    "EARSHOT_WRK requests=%d duration_us=%d p50_us=%d p99_us=%d max_us=%d connect=%d read=%d write=%d status=%d timeout=%d cpu_ticks=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout, tonumber(fields[12]) + tonumber(fields[13])))
end
