"""Hand-written phrasings of the six persuasion principles, the atoms of the v3 reader's training set
(:mod:`benchmarks.persuasion.reader_v3_corpus` composes them; the labelling spec is docs/reader_v3.md).

Each block holds one phrasing a line, ``<concern> | <text>`` with ``-`` for no concern. ``PITCHES`` are
whole lines; ``CLAUSES`` are lower-case clauses that other lines embed (stuffed, negated, hostile or with a
request around them), so every clause must read as its principle wherever it is put.
Written from the spec alone, in many settings (exercise, volunteering, buying, studying, voting, health).
"""

from __future__ import annotations

PITCHES: dict[str, str] = {
    "reciprocity": """
- | I sat up with you every night when you had the flu.
- | Who took your calls when you were stuck abroad? I did.
- | I spent three weekends building your shed.
- | I looked after your house the whole time you were in Spain.
- | I gave you my notes for the whole term.
- | I went to every one of your gigs, even the terrible ones.
- | You still have my lawnmower, by the way.
- | When your car broke down, I came out at midnight.
- | Last month I drove you to the airport at four in the morning; all I'm asking is one evening.
- | Who sorted out your broken boiler in January? Me.
- | I never asked for anything when I helped with your wedding.
cost | Bring a friend and you both get a free class on us.
- | My brother fixed your roof for nothing; he'd love it if you came to his fundraiser.
- | Give me an hour at the stall and I'll give you a Saturday on your allotment.
- | I've been picking up your post for a year.
- | Tell you what, you vote, I'll watch the kids.
- | I'll make it worth your while.
- | Consider it payback for all those lifts I gave you.
- | We chipped in for your leaving present, remember.
- | You can count on me to return it, whatever you need.
- | I listened to you every night when you were going through the divorce.
- | For every shift you do, I'll do one of yours.
- | Yesterday I stayed late so you could get home early.
- | I picked your kids up from school all last term, so I'm hoping you'll help me with this.
- | Remember the time I lent you my van? This is me asking for something back.
cost | Sign up today and they'll give you a free fitness assessment in return.
- | I spent my Saturday fixing your fence, so come to the food bank with me for one shift.
- | If you vote in the council election, I'll give you a lift to the polling station.
- | I'll cook you dinner on Friday if you come to the open evening with me.
- | You helped me revise for my exams, and now I want to return the favour by getting you into this course.
- | I was there for you at the hospital every day; I'd love you to do this one thing for me.
cost | Donate once and the charity sends you a handmade card as a thank-you.
- | I covered for you at work three times this month.
- | Didn't I walk your dog all week while you were away?
- | I did you a good turn last winter; it's your turn now.
- | Come running with me and I'll buy the post-run breakfasts.
effort | I'll fill in all the forms for you if you agree to give blood.
- | You owe me one for the airport run, so come to the meeting.
cost | Buy the solar panels through us and we'll throw in the installation as a gift.
- | I read every draft of your thesis; could you read over my application in return?
- | I'll mind the baby for an evening so you can go to the class.
- | Think of all the times I've had your back.
- | Since I helped you paint the kitchen, maybe you could help at the charity stall.
- | One good turn deserves another.
- | I'll take your shift on Sunday if you'll volunteer on Saturday.
cost | Members who refer a friend get a month free as our thanks.
- | I gave you my concert ticket last year, so I'm calling in that favour.
- | Join the book club and I'll lend you all my copies.
- | I've always helped you when you asked; now I'm asking.
- | We looked after your cat for a fortnight, remember?
- | Help me canvass this afternoon and I'll help you move house next week.
cost | As a thank-you for trying the course, your first textbook is on us.
- | I drove you to every physio appointment, so please come to the check-up with me.
- | You know I'd do the same for you.
- | I did your washing-up every night while you studied.
- | Come to the choir with me, and I'll return the favour whenever you like.
cost | Fill in the survey and you'll get a voucher for your trouble.
- | I stood up for you in that meeting, so stand with me on this.
- | I paid for your ticket last time.
- | After I helped you with your CV, surely you can spare an hour for the clean-up.
effort | I'll carry all the kit, you just turn up.
- | Give the vegetarian month a go and I'll teach you my best recipes in exchange.
- | You'd be doing me a real favour, and I'll make it up to you.
""",
    "scarcity": """
timing | Applications close on the fifteenth and won't open again.
- | When they're gone, they're gone.
timing | The last intake of the year starts next week.
- | There are more people wanting places than there are places.
- | Only a lucky few get through the ballot.
timing | Enrolment is open for a few more days only.
- | The shop's final batch arrived this morning and is half gone.
- | You won't find another course like it for years.
- | Once the fifty kits are gone, that's it until next year.
timing | Doors close for applications on the first of the month.
- | Hardly anybody gets a place on that scheme.
- | You can't get these anywhere else any more.
timing | By next week the grant will be gone.
- | Only members who join this term get the old rate, and there are few spots.
- | I grabbed one of the final tickets; there might be one more.
timing | It's going, going, almost gone, so decide today.
- | This is a one-off.
- | There aren't many of these left in the country.
timing | They stop taking donors at four.
- | Such a rare opening.
- | Availability is very tight this season.
timing | The window for switching closes at the end of the quarter.
- | Numbers are capped at twelve.
- | Only five places are left on the evening course.
timing | The early-bird price ends at midnight.
timing | This is your last chance to register before the vote.
- | They hardly ever have openings at that gym.
- | The blood drive only comes to town twice a year.
- | There are just a handful of volunteer slots left for the summer.
timing | Enrolment closes this Friday.
- | The panels are selling out fast and the next batch is months away.
timing | The discount disappears after today.
- | Spaces on the walking tour are strictly limited.
- | Once these tickets go, there won't be any more.
timing | You've only got until Sunday to apply.
- | It's a rare chance to study with someone like her.
timing | The offer expires at the end of the month.
- | Last three bikes in stock.
- | They only take twenty new members a year.
timing | Registration shuts in two days.
- | The clinic has a single appointment left this week.
timing | Now or never: the deadline's tomorrow.
- | Limited edition, and there are hardly any left.
- | Most years the course is full by March, and there are only a couple of seats left.
timing | The polling station closes at ten tonight.
- | Seats at the workshop are almost gone.
timing | The scholarship deadline is this week, so don't leave it.
- | A chance like this won't come round again.
- | Only a few people get picked for the programme.
timing | The sale ends on Monday.
- | Supplies of the vaccine are running low at the pharmacy.
- | They're down to the last two tickets.
timing | Time's running out to sign up.
- | This kind of opportunity is rare.
timing | Only today: half-price membership.
- | The trainer only has one free slot left on her calendar.
- | Hurry, the stock won't last.
timing | After Thursday the course is closed to new students.
- | There's a waiting list, but one place just opened up.
timing | You won't get this price again after the weekend.
- | Just one spot remains.
- | Places for the marathon go in minutes.
- | Few people ever get offered a trial like this.
""",
    "consensus": """
- | Just about every household on the estate has one now.
- | The whole rugby team signed up last night.
- | Every family in our cul-de-sac takes part.
- | Your entire year group is going.
- | The whole choir gave blood together last month.
- | Nine people in my office have already switched.
- | Ask anyone at the club, they've all done it.
- | Your book club voted to do it as a group.
- | Every single person in my yoga class has done it.
- | Ask around, nearly all your friends already recycle.
- | Four hundred people from our town volunteered last year.
fit | Lots of first-time voters your age are registering.
- | Most of the parents at the school gate have signed.
- | The vast majority of my patients' families get the jab.
- | Everyone on your floor has switched energy supplier.
- | It's what people around here do on a Sunday.
doubt | The reviews from other buyers are glowing.
- | It's been the top pick among students for years.
- | Your cousins both did the course and loved it.
- | The whole gang's going on Thursday.
- | Most households on the estate compost now.
- | Your friends are all talking about it.
- | It's become really common to give monthly.
- | Most of the people in our building already recycle.
- | All your friends from work have signed up for the charity walk.
fit | People your age are joining the running club in droves.
- | Nearly everyone in the street voted last time.
- | Thousands of students have taken this course.
doubt | Nine out of ten customers say they'd buy it again.
- | Your sister and her whole team volunteer there.
- | Everybody's switching to cycling to work these days.
- | The whole class is going to the revision session.
- | Loads of people donated after the appeal.
fit | Parents just like you have found it a lifesaver.
- | It's the most popular class at the leisure centre.
- | Half the office has already had the flu jab.
- | Your neighbours all got the heat pump.
- | Everyone I know is doing the step challenge.
doubt | Thousands of reviews say it works.
- | Most people in your position choose the savings plan.
- | It's what everybody's talking about.
- | The other parents have all volunteered for a shift.
- | Millions of people have already downloaded it.
- | More and more people are giving blood regularly.
- | The rest of the team has already enrolled.
- | It's a bestseller for a reason.
fit | Lots of people who were nervous like you have joined.
- | Your friends all think it's a great idea.
- | Everyone else in the family has booked a check-up.
- | The majority of voters here turn out for local elections.
- | All the other volunteers love it.
- | Most of your classmates are applying.
- | People around here swear by that gym.
- | Our whole street is on the litter-pick rota.
- | The community is really getting behind it.
- | Everyone's going, don't you want to be there too?
- | Most folks here bring their own bags now.
fit | Other beginners have found it easy to follow.
- | It's become the norm for people to get screened.
- | Your colleagues have all pledged something.
- | Your mates are all in.
- | Practically the whole village turned up last year.
- | Plenty of people are already doing it.
""",
    "authority": """
- | My physio, who works with professional footballers, says you need this.
- | The pharmacist told me it's the best thing for it.
- | A surgeon I know has recommended this for years.
- | The head of the science department says it's the best course.
- | The firefighters who visited school said every home needs one.
- | My optician swears by these.
- | Our mortgage adviser, who's been doing this for thirty years, says go for it.
- | The council's planning officer said it's a good idea.
- | The consultant at the clinic was very clear that you should do it.
- | I asked a tax lawyer and she said it's the smart move.
doubt | The trial results were published in The Lancet.
- | Twenty years as a personal trainer tells me this is right for you.
- | The Red Cross advises everyone to learn first aid.
- | Sports scientists say interval training is the most efficient.
- | The careers adviser specifically recommended this course.
doubt | There's a mountain of evidence from the research.
- | Your doctor would tell you the same thing.
- | Even the government's chief medical officer urges it.
- | The fitness instructor who qualified at Loughborough designed this plan.
- | Professionals in the industry recommend the apprenticeship.
- | The British Heart Foundation says walking is enough.
- | According to the official guidance, now's the time to register.
- | The vet said the dog needs more walks, and so do you.
doubt | The NHS recommends thirty minutes of exercise a day.
- | My GP says everyone over fifty should get screened.
doubt | A study from Oxford found volunteering lowers stress.
- | Financial advisers recommend starting a pension early.
- | Dentists recommend it.
- | The head teacher thinks you'd benefit from the revision sessions.
doubt | Research shows people who vote feel more connected.
- | The fire brigade advises fitting a smoke alarm in every room.
- | I've been a physiotherapist for fifteen years, and I'd tell you to stretch daily.
doubt | The evidence from clinical trials is very strong.
- | Consumer Reports rated these panels top of their class.
- | The professor said it's the best introduction to the subject.
- | Doctors advise getting the vaccine before winter.
- | According to the World Health Organization, it saves lives.
doubt | Scientists have proven it reduces your risk.
- | My trainer, who coaches Olympic athletes, swears by this routine.
- | The electoral commission urges everyone to register.
- | The pharmacist recommended it specifically.
doubt | Peer-reviewed research backs this up.
- | Engineers rate this model the safest on the market.
- | Health experts say it's the single best thing you can do.
- | Ask any nurse and they'll tell you to get it checked.
- | The council's environmental officer recommends composting.
doubt | Decades of data show it works.
- | The guidelines from the medical association are clear.
- | Experts agree.
- | Nutritionists suggest eating more fibre.
- | I'm a qualified accountant, and this is the plan I'd pick.
doubt | The research is unambiguous on this.
- | Specialists in the field recommend this course.
- | The consultant said surgery isn't needed if you do the exercises.
- | The official advice is to donate if you can.
doubt | A Cambridge trial showed it halved injuries.
- | Leading economists back the scheme.
- | Experts recommend running.
- | The safety inspector signed it off.
- | According to the studies, it's effective.
- | My tutor, who marks the exams, said to take this module.
- | Top cardiologists recommend walking every day.
doubt | Lab tests confirmed it's safe.
""",
    "commitment": """
- | In January you told me you'd run a marathon this year.
- | You've always said voting matters.
- | You said this was your year.
- | You're the one who started the petition.
- | You signed up for the first two sessions yourself.
- | You said you wanted your kids to see you give back.
- | Every time we talk, you say you want to be healthier.
- | You've already booked the time off for it.
- | This is the person you told me you wanted to become.
- | You were so proud when you did the first 5k; don't stop now.
- | Weren't you the one who said you'd give more this year?
- | You put it on your list of goals.
- | You've paid the membership already, so use it.
- | You always say you hate wasting things.
- | You've been telling everyone you're a morning runner now.
- | On your birthday you said this would be the year you'd learn to swim.
- | You've already cut down, so stopping is the next step.
- | You've voted in every election since you were eighteen.
- | It lines up with everything you stand for.
- | Remember your promise to your dad.
- | You told me you wanted to give back to the community.
- | You said you'd be there, so be there.
- | You've always been a woman of your word.
- | You said you wanted to get fit this year.
- | You told me last month you'd give volunteering a go.
- | You've always said you care about the environment.
- | You've already done the first session, so keep going.
- | You promised your mum you'd get that mole checked.
- | You've always been someone who keeps their word.
- | You voted last time, so don't break the habit now.
- | You signed the petition, so coming to the meeting is the natural next step.
- | Didn't you say you wanted to learn Spanish?
- | You've been saving for months; this is what you were saving for.
- | You were the one who said we should do more for the neighbourhood.
- | You've already paid the deposit.
- | Your new year's resolution was to run a 10k.
- | You care about fairness, and this is about fairness.
- | You started the course, finish what you began.
- | Stay true to what you believe in.
- | You told the whole team you'd try it.
- | You've given blood before, so you know the drill.
- | This is exactly the kind of thing you said you'd do more of.
- | You've always been the one who shows up.
- | You set yourself a goal of reading twenty books.
- | You already filled in half the form.
- | You said health comes first for you.
- | You made a pledge to cycle to work.
- | You've come this far.
- | Be consistent with what you said at dinner.
- | You've always told me education matters most.
- | You took the first step by booking the taster session.
- | You agreed to this in principle last week.
- | Remember what you wrote in your journal about wanting to change?
- | You're someone who follows through.
- | You said you wanted a greener house.
- | Keep the promise you made to yourself.
effort | You've done the hard part already; the rest is small.
- | You told me you were sick of putting it off.
- | You've been to two meetings already, so come to the third.
- | You've always stood up for people who need help.
- | You told your doctor you'd quit by summer.
- | It fits everything you've told me about your goals.
- | You already registered, you just need to turn up.
""",
    "liking": """
- | We've been close since we were kids.
- | You're honestly one of the loveliest people I know.
- | You and I always have the best time together.
- | You've got such a good heart.
- | I'd do anything for you, you know that.
- | Everyone lights up when you walk in, me included.
- | You're so easy to talk to.
- | We're cut from the same cloth.
- | Honestly, you're the person I'd most want beside me on this.
- | You've got the best laugh in the office.
- | I've always thought you were brilliant.
- | You're a joy to be around.
- | We're both stubborn, that's why we get on.
- | I'm so lucky to have you as a friend.
- | You're a genuinely lovely person.
- | Us two against the world, like always.
- | I really admire how hard you work.
- | You've got such good instincts.
- | You're kind, you're funny, and everyone adores you.
- | I'd miss you if you weren't there.
- | You're a brilliant cook, by the way.
- | You've always been a great listener.
- | I'm proud to call you my friend.
- | You're so good with the kids, they'd love having you.
- | I really enjoy spending time with you.
- | We make a great team, you and me.
fit | You're a natural runner.
- | You've got a lovely way with people.
- | I've always admired your energy.
- | You're one of the kindest people I know.
- | We're both from Leeds, so I knew you'd understand.
- | I'd love to do this together.
- | You're brilliant at explaining things.
- | Honestly, you're a pleasure to work with.
- | You've got great taste.
- | We're two of a kind.
- | You're such a good friend.
- | I think the world of you.
- | You light up every room you walk into.
- | We've been mates for twenty years.
- | You're smart, and I trust your judgement.
- | You always make me laugh.
- | It'd be so much more fun with you there.
- | You're the most generous person I've met.
fit | Someone as organised as you would be perfect for the committee.
- | I adore working with you.
- | We've always looked out for each other.
- | You're a star.
- | Fellow cyclists have to stick together.
- | You have such a warm heart.
- | I love how curious you are.
- | You're great company.
- | We're on the same side here.
- | You're really talented.
- | I've missed our chats.
- | You've got a brilliant mind.
- | As one nurse to another, I know you get it.
- | You're my favourite neighbour.
- | You always know the right thing to say.
fit | You'd be amazing at it.
- | I love your enthusiasm.
- | You're a good egg.
- | You're the best.
""",
}

CLAUSES: dict[str, str] = {
    "reciprocity": """
- | I covered your shift last week
- | I helped you move house
- | I'll drive you there
- | I'll buy you lunch afterwards
- | I lent you the money when you needed it
- | you owe me a favour
- | I looked after your plants all summer
cost | you get a free gift in return
- | I'll return the favour
- | I did your paperwork for you
- | I babysat for you on Friday
- | I'll help you with your garden in exchange
- | I was there when you needed me
- | I gave up my evening to help you
cost | they send you a thank-you present
- | I fixed your bike for nothing
- | I'll owe you one
- | I sorted out your tax return
- | I cooked for you all week
- | I'll do the school run for you
""",
    "scarcity": """
- | there are only a few spots left
timing | the offer ends on Friday
timing | it's your last chance
- | places are limited
- | tickets are almost gone
timing | registration closes tonight
- | they only run it once a year
- | there's just one seat left
timing | the deadline is tomorrow
- | stock is running out
timing | the discount ends this week
- | it rarely comes up
- | spaces are filling fast
timing | it's only available until Sunday
- | only twenty people get in
- | it's nearly sold out
timing | the window closes soon
- | they're down to the last few
- | it won't be offered again
timing | sign-ups close at noon
""",
    "consensus": """
- | everyone's doing it
- | most of your friends have joined
- | all the neighbours have signed up
- | thousands of people use it
- | the whole office is going
- | it's the most popular option
fit | people like you love it
- | most people choose it
- | your family has already done it
- | loads of students take it
- | everyone at the club recommends it
- | the other parents are all in
- | half the street has solar panels now
- | millions have tried it
- | the rest of the team has enrolled
- | nearly everyone votes here
- | your classmates are going
- | it's what most people do
- | hundreds of volunteers turn up each week
- | everybody I know loves it
""",
    "authority": """
- | experts recommend it
- | the doctors say so
doubt | studies show it works
- | scientists back it
- | the NHS advises it
- | my GP recommends it
doubt | the research is clear
- | professionals swear by it
- | the official guidance says so
- | dentists recommend it
- | the professor endorses it
doubt | clinical trials prove it
- | health experts advise it
- | the specialists agree
- | your teacher recommends it
- | financial advisers suggest it
- | the safety regulator approved it
- | nutritionists recommend it
- | leading economists support it
- | the medical council endorses it
""",
    "commitment": """
- | you said you wanted to get fit
- | you promised you'd try it
- | you've already started
- | you've always cared about this
- | you told me it mattered to you
- | you signed up last time
- | you've always kept your promises
- | you already paid the deposit
- | it's what you said you wanted
- | you made a pledge
- | you've come so far already
- | you agreed last week
- | your goal was to do exactly this
- | you've done the first step
- | you told everyone you would
- | you said health comes first
- | you've always believed in giving back
- | you started the application
- | it matches the values you've always had
- | you said you'd never miss a vote
""",
    "liking": """
- | you're great with people
- | we're in this together
- | I love working with you
- | you're my best friend
- | you're so talented
- | we're a great team
- | you're wonderful
- | I've always admired you
fit | you'd be brilliant at it
- | we've been friends forever
- | you're the kindest person I know
- | I really like you
- | you have a great heart
- | we're alike
- | you're lovely company
- | I trust you completely
- | you're a star
- | you're so clever
- | we're in the same boat
- | you always make things fun
""",
}
