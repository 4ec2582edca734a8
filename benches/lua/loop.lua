local function run()
  local acc = 0
  for i = 0, 2999 do
    for j = 0, 999 do
      acc = (acc + i * j) % 1000003
    end
  end
  return acc
end
local t = os.clock(); local r = run(); print(r, os.clock() - t)
