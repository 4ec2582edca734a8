-- Nested integer loop with * and % (programs/loop.asm); result 9018.
return function()
  local acc = 0
  for i = 0, 2999 do
    for j = 0, 999 do
      acc = (acc + i * j) % 1000003
    end
  end
  return acc
end
