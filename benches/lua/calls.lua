-- Call-heavy (programs/calls.asm): two small calls per iteration; result 925184.
local bxor, band
if bit then
  bxor, band = bit.bxor, bit.band
else
  bxor = load("return function(a, b) return a ~ b end")()
  band = load("return function(a, b) return a & b end")()
end
local function mix(a, b) return bxor(a, b) + 1 end
local function step(acc, i) return band(mix(acc, i), 1048575) end
return function()
  local acc = 0
  for i = 0, 999999 do acc = step(acc, i) end
  return acc
end
