"""Set calibration (`fanscan calibrate`): labelled tiles of the user's own set -> a set profile, numpy only.

`sources` reads the tiles (a YOLO-layout folder or laid-out photos), `views` makes augmented views of each, `fit`
fits the profile (`vision.profile` stores and applies it).
"""
