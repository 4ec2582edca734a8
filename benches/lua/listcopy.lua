local src, dst = {}, {}
for i = 1, 8192 do src[i] = i - 1 end
local function copy(to, from)
  local j = 1
  for _, v in ipairs(from) do to[j] = v; j = j + 1 end
end
local t = os.clock()
for _ = 1, 200 do copy(dst, src) end
print(dst[1] + dst[8192], os.clock() - t)
