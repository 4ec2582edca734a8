-- Sieve of Eratosthenes over 8192 entries, 50 times (programs/sieve.asm); result 1028.
local flags = {}
local function sieve()
  for i = 0, 8191 do flags[i] = 1 end
  local i = 2
  while i * i < 8192 do
    if flags[i] ~= 0 then
      local j = i * i
      while j < 8192 do flags[j] = 0; j = j + i end
    end
    i = i + 1
  end
  local count = 0
  for k = 2, 8191 do if flags[k] ~= 0 then count = count + 1 end end
  return count
end
return function()
  local r
  for _ = 1, 50 do r = sieve() end
  return r
end
