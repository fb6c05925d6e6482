// WorldCheck: the World helpers of the Unity package's C# on a store
// baked with --engine unity at (1000, 2000), 10 m cells: a position, a
// cell's centre, and the exceptions off the terrain and on a closed handle.
// Compiled with bindings/unity/Runtime/Frontiersets.cs by lib_test.go.
using System;
using Frontiersets;

public static class WorldCheck
{
    public static int Main(string[] args)
    {
        var err = new Native.Error();
        long store;
        if (Native.Open(args[0], out store, ref err) != 0)
        {
            Console.WriteLine("open: " + err);
            return 1;
        }
        double x, y, a, b;
        World.ToPosition(store, 1123.7, 2208, out x, out y);
        World.FromCell(store, 12, 21, out a, out b);
        Console.WriteLine("position {0:F2} {1:F2} cell {2:F2} {3:F2}", x, y, a, b);
        try
        {
            World.ToPosition(store, 990, 2208, out x, out y);
            Console.WriteLine("no exception off the terrain");
        }
        catch (ArgumentOutOfRangeException e)
        {
            Console.WriteLine("off the terrain: " + (e.Message.Contains("x 1000 to 1470") ? "bounds named" : e.Message));
        }
        // Two players ticked once through the interest manager.
        long im;
        Native.TickResult tr;
        if (Native.InterestNew(store, 2, out im, ref err) != 0 ||
            Native.InterestTick(im, new double[] { 2, 2, 45, 37 }, 2, out tr, ref err) != 0)
        {
            Console.WriteLine("interest: " + err);
            return 1;
        }
        int k;
        var to = new int[2];
        Native.InterestSendsTo(im, 0, to, 2, out k, ref err);
        Console.WriteLine("interest: {0} exits", tr.Exits);
        Native.InterestFree(im, ref err);
        Native.Close(store, ref err);
        try
        {
            World.ToPosition(store, 1123.7, 2208, out x, out y);
            Console.WriteLine("no exception on a closed handle");
        }
        catch (ArgumentException)
        {
            Console.WriteLine("closed: ArgumentException");
        }
        return 0;
    }
}
