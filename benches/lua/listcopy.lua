-- List copy (programs/listcopy.asm): copy an 8192-entry array 200 times with
-- the for-in idiom (ipairs); result 8191.
local src, dst = {}, {}
local function copy(to, from)
  local j = 1
  for _, v in ipairs(from) do to[j] = v; j = j + 1 end
end
return function()
  for i = 1, 8192 do src[i] = i - 1 end
  for _ = 1, 200 do copy(dst, src) end
  return dst[1] + dst[8192]
end
