-- N-queens by recursive backtracking over arrays passed as parameters
-- (che/queens.che): the number of ways to place 11 queens; result 2680.
local function place(row, n, col, up, down)
  if row == n then return 1 end
  local count = 0
  for c = 0, n - 1 do
    if col[c] == 0 and up[row + c] == 0 and down[row - c + n - 1] == 0 then
      col[c] = 1
      up[row + c] = 1
      down[row - c + n - 1] = 1
      count = count + place(row + 1, n, col, up, down)
      col[c] = 0
      up[row + c] = 0
      down[row - c + n - 1] = 0
    end
  end
  return count
end
return function()
  local col, up, down = {}, {}, {}
  for i = 0, 10 do col[i] = 0 end
  for i = 0, 20 do up[i] = 0; down[i] = 0 end
  return place(0, 11, col, up, down)
end
