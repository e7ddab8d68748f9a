"""What the lessons share that is not the lesson's work: the description of the target device."""
