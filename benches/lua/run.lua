-- Runs one benchmark workload ITERS times and prints the elapsed CPU time
-- (seconds) and the last result. Usage: lua run.lua FILE.lua ITERS
-- Timing happens inside the process, so interpreter start-up is excluded.
local file, iters = arg[1], tonumber(arg[2])
local bench = dofile(file)
local r
local t0 = os.clock()
for _ = 1, iters do r = bench() end
io.write(string.format("%.9f %s\n", os.clock() - t0, tostring(r)))
