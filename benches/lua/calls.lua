local bxor, band = bit and bit.bxor, bit and bit.band
local function mix(a, b) return bxor(a, b) + 1 end
local function step(acc, i) return band(mix(acc, i), 1048575) end
local t = os.clock(); local acc = 0
for i = 0, 999999 do acc = step(acc, i) end
print(acc, os.clock() - t)
