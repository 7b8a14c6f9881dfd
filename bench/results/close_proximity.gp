# Written by bench/close_proximity: close_proximity --csv bench/results/close_proximity.csv --plot bench/results
# Make the plot: cd into this folder, then: gnuplot close_proximity.gp
set terminal pngcairo size 1000,680 font ",11"
set output "close_proximity.png"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "gap (outer surface at least 1 + gap from the centre; inner sphere radius 1)"
set ylabel "BV tests per query (mean of 50 rotations)"
set title "Parallel close proximity: UV sphere (16128 triangles) inside a concentric sphere, leaf size 1"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key bottom left box opaque
set samples 400
set xrange [6.66667e-05:1.5]
set yrange [36:2.58715e+06]
ref2(x) = 495.193445 * x**-2
ref1(x) = 288.696969 * x**-1
plot \
  "close_proximity.dat" using 1:2 with linespoints lw 2 pt 5 lc rgb "#1f77b4" title "aabb full (slope -1.98 on 0.1..1)", \
  "close_proximity.dat" using 1:3 with linespoints lw 2 pt 4 lc rgb "#6baed6" title "aabb lite (slope -1.96 on 0.1..1)", \
  "close_proximity.dat" using 1:4 with linespoints lw 2 pt 7 lc rgb "#d62728" title "obb full (slope -1.21 on 0.1..1)", \
  "close_proximity.dat" using 1:5 with linespoints lw 2 pt 6 lc rgb "#ff9896" title "obb lite (slope -1.24 on 0.1..1)", \
  "close_proximity.dat" using 1:6 with linespoints lw 2 pt 9 lc rgb "#2ca02c" title "obb-sphere (slope -1.24 on 0.1..1)", \
  "close_proximity.dat" using 1:7 with linespoints lw 2 pt 11 lc rgb "#9467bd" title "sphere (slope -3.03 on 0.1..1)", \
  ref2(x) with lines dt 2 lw 1.5 lc rgb "#555555" title "slope -2 (slides: AABB, sphere)", \
  ref1(x) with lines dt 3 lw 1.5 lc rgb "#555555" title "slope -1 (slides: OBB)"
